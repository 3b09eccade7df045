package refresh

import (
	"fmt"
	"math"
	"strings"
)

// Policy says how a capacity of fetches is shared between pages.
type Policy int

const (
	// Optimal is Cho and Garcia-Molina's allocation: the revisit
	// frequencies that maximize the expected freshness of Poisson pages of
	// the given rates under the capacity. Pages that change far more
	// often than the capacity allows are left alone.
	Optimal Policy = iota
	// Uniform revisits every page at the same interval.
	Uniform
	// Proportional revisits pages in proportion to their rate.
	Proportional
	// Paper revisits each page at its group's frequency (Groups16), all
	// scaled together to fill the capacity.
	Paper
	// Paper6 is Paper with the six groups (Groups6).
	Paper6
	// SquareRoot revisits pages in proportion to the square root of their
	// rate: the optimum's shape for pages revisited much more often than
	// they change, without its abandoning of the fastest pages, which
	// costs freshness when rates are learnt from a past that does not
	// repeat. The default (DefaultPolicy).
	SquareRoot
)

// DefaultPolicy is the policy of scent's scheduler and of refresh-eval's
// first row. It was chosen on a validation split of the shared change
// history (learn on its first quarter, score on its second), before the
// second half was scored.
const DefaultPolicy = SquareRoot

var policyNames = []string{"optimal", "uniform", "proportional", "groups", "groups6", "sqrt"}

// String is the policy's name as the command line takes it.
func (p Policy) String() string {
	if p >= 0 && int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy reads a policy's name.
func ParsePolicy(s string) (Policy, error) {
	for i, n := range policyNames {
		if strings.EqualFold(s, n) {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown refresh policy %q (want one of %s)", s, strings.Join(policyNames, ", "))
}

// Allocate shares capacity fetches per day between pages of the given
// weekly change rates and returns each page's revisit frequency in fetches
// per day (0: never). The frequencies sum to capacity, except under
// Optimal when every page has rate 0 (all frequencies are then equal).
func Allocate(p Policy, rates []float64, capacity float64) []float64 {
	f := make([]float64, len(rates))
	AllocateInto(f, p, rates, capacity)
	return f
}

// AllocateInto is Allocate writing into f, which has len(rates) entries.
func AllocateInto(f []float64, p Policy, rates []float64, capacity float64) {
	n := len(rates)
	if n == 0 {
		return
	}
	if !(capacity > 0) {
		clear(f)
		return
	}
	weights := func(w func(r float64) float64) {
		sum := 0.0
		for i, r := range rates {
			f[i] = w(r)
			sum += f[i]
		}
		if sum <= 0 {
			for i := range f {
				f[i] = capacity / float64(n)
			}
			return
		}
		for i := range f {
			f[i] *= capacity / sum
		}
	}
	switch p {
	case Uniform:
		weights(func(float64) float64 { return 1 })
	case Proportional:
		weights(func(r float64) float64 { return clean(r) })
	case Paper:
		weights(func(r float64) float64 { return GroupOf(r, Groups16).PerWeek() })
	case Paper6:
		weights(func(r float64) float64 { return GroupOf(r, Groups6).PerWeek() })
	case SquareRoot:
		weights(func(r float64) float64 { return math.Sqrt(clean(r)) })
	default:
		optimal(f, rates, capacity)
	}
}

func clean(r float64) float64 {
	if !(r >= 0) || math.IsInf(r, 1) {
		return 0
	}
	return r
}

// optimal solves max Σ F(λ_i, f_i) subject to Σ f_i = C, with the expected
// freshness F(λ, f) = (f/λ)(1 − e^(−λ/f)). At the optimum every page with
// f_i > 0 has ∂F/∂f = μ, that is g(λ_i/f_i) = μλ_i with
// g(x) = 1 − (1 + x)e^(−x), increasing from 0 to 1; a page with μλ_i ≥ 1
// gets nothing. μ is found by bisection on the total.
func optimal(f, rates []float64, capacity float64) {
	var lam []float64
	if len(rates) <= 1024 {
		var buf [1024]float64
		lam = buf[:len(rates)]
	} else {
		lam = make([]float64, len(rates))
	}
	minRate := math.Inf(1)
	for i, r := range rates {
		lam[i] = clean(r) / 7 // per day
		if lam[i] > 0 {
			minRate = min(minRate, lam[i])
		}
	}
	if math.IsInf(minRate, 1) {
		for i := range f {
			f[i] = capacity / float64(len(f))
		}
		return
	}
	total := func(mu float64) float64 {
		s := 0.0
		for i, l := range lam {
			f[i] = freqAt(l, mu)
			s += f[i]
		}
		return s
	}
	// total decreases in μ and is 0 from μ = 1/minRate on; bisect on
	// log μ.
	hi := 1 / minRate
	lo := hi
	s := 0.0
	for range 200 {
		lo /= 16
		if s = total(lo); s >= capacity {
			break
		}
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		s = total(mid)
		if math.Abs(s-capacity) <= 1e-4*capacity {
			return
		}
		if s > capacity {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1+1e-12 {
			break
		}
	}
	// The capacity falls in a jump of the total: as μλ reaches 1 a page's
	// frequency falls from λ/x (x ≈ 37 at float precision) to 0. The pages
	// at that edge share what is left at hi, each up to its frequency at
	// lo; any rest is spread over everyone in proportion.
	sHi := total(hi)
	slack := capacity - sHi
	edge := 0.0
	for i, l := range lam {
		if f[i] == 0 {
			edge += freqAt(l, lo)
		}
	}
	if slack > 0 && edge > 0 {
		share := min(slack/edge, 1)
		for i, l := range lam {
			if f[i] == 0 {
				f[i] = share * freqAt(l, lo)
			}
		}
		sHi += share * edge
	}
	if sHi > 0 {
		for i := range f {
			f[i] *= capacity / sHi
		}
	}
}

// freqAt is the frequency (per day) of a page of rate l (per day) at the
// multiplier mu: f = l / g⁻¹(μl), 0 when μl ≥ 1.
func freqAt(l, mu float64) float64 {
	if l <= 0 {
		return 0
	}
	y := mu * l
	if y >= 1 {
		return 0
	}
	if y <= 0 {
		return math.Inf(1)
	}
	return l / ginv(y)
}

// ginvTable samples g(x) = 1 − (1 + x)e^(−x) at log-spaced x, for ginv.
var ginvX, ginvY = func() ([]float64, []float64) {
	const n = 4096
	xs, ys := make([]float64, n), make([]float64, n)
	lo, hi := math.Log(1e-4), math.Log(60)
	for i := range n {
		x := math.Exp(lo + (hi-lo)*float64(i)/(n-1))
		xs[i] = x
		ys[i] = -math.Expm1(-x) - x*math.Exp(-x)
	}
	return xs, ys
}()

// ginv solves 1 − (1 + x)e^(−x) = y for x > 0, y in (0, 1): by the series
// x ≈ √(2y) for tiny y, by interpolation in a table of g otherwise (the
// relative error is under 10⁻⁵, far below what rates are known to).
func ginv(y float64) float64 {
	if y < ginvY[0] {
		return math.Sqrt(2 * y)
	}
	n := len(ginvY)
	if y >= ginvY[n-1] {
		// g(x) ≈ 1 − x e^(−x) for large x: a few Newton steps.
		x := ginvX[n-1]
		for range 8 {
			e := math.Exp(-x)
			x -= (1 - (1+x)*e - y) / (x * e)
		}
		return x
	}
	i, j := 0, n-1
	for j-i > 1 {
		m := (i + j) / 2
		if ginvY[m] <= y {
			i = m
		} else {
			j = m
		}
	}
	t := (y - ginvY[i]) / (ginvY[j] - ginvY[i])
	return ginvX[i] + t*(ginvX[j]-ginvX[i])
}

// Freshness is the expected freshness of a Poisson page of rate λ
// revisited at a fixed interval I (in the same time unit):
// (1 − e^(−λI)) / (λI); 1 when λI is 0.
func Freshness(lambdaI float64) float64 {
	if lambdaI <= 0 {
		return 1
	}
	return -math.Expm1(-lambdaI) / lambdaI
}

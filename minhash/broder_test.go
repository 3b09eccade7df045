package minhash

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// catchProbability is Broder's formula for the probability that two texts
// of resemblance r agree on at least MinAgreeing of NumFeatures features:
// a feature agrees when all GroupSize minima of its group agree, which
// happens with probability q = r^GroupSize, independently per group.
func catchProbability(r float64) float64 {
	q := math.Pow(r, GroupSize)
	p := 0.0
	for k := 0; k < MinAgreeing; k++ {
		p += binomial(NumFeatures, k) * math.Pow(q, float64(k)) * math.Pow(1-q, float64(NumFeatures-k))
	}
	return 1 - p
}

func binomial(n, k int) float64 {
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}

// uniqueWords hands out words that never repeat: the base-26 spelling, in 8
// letters, of a counter multiplied by a constant invertible modulo 26^8, so
// consecutive words look unrelated.
type uniqueWords struct{ n uint64 }

func (u *uniqueWords) next() string {
	const space = 208827064576 // 26^8
	v := u.n * 0x2545f4915 % space
	u.n++
	var w [8]byte
	for i := range w {
		w[i] = byte('a' + v%26)
		v /= 26
	}
	return string(w[:])
}

// editedPair returns two texts whose shingle sets (w = 8) have the exact
// resemblance (s−8k)/(s+8k), where s = n−7 is the number of shingles of each
// text. Every word of the first text is distinct, so all its shingles are
// distinct; the second text replaces k words, at least 8 apart and away
// from the ends, by new distinct words. Each replacement turns exactly the 8
// shingles that cover it into 8 new ones, so the texts share s−8k shingles
// and their union has s+8k.
func editedPair(u *uniqueWords, n, k int) (a, b string) {
	words := make([]string, n)
	for i := range words {
		words[i] = u.next()
	}
	a = strings.Join(words, " ")
	gap := (n - 16) / k
	for i := range k {
		words[8+i*gap] = u.next()
	}
	return a, strings.Join(words, " ")
}

// TestBroderGuarantee checks by simulation, on real texts through the whole
// of Sign, that pairs of resemblance 0.98 are caught with probability at
// least 0.99 and pairs of resemblance 0.75 with probability at most 0.01,
// and that the rates match Broder's formula.
func TestBroderGuarantee(t *testing.T) {
	const pairs = 2000
	s := newTestSigner(t, DefaultParams())
	u := &uniqueWords{n: 1}
	tests := []struct {
		name      string
		words     int // n: s = n−7 shingles per text
		edits     int // k
		num, den  int // the exact resemblance (s−8k)/(s+8k)
		rateOK    func(float64) bool
		guarantee string
	}{
		// s = 792, k = 1: 784/800 = 0.98.
		{"r=0.98", 799, 1, 784, 800, func(p float64) bool { return p >= 0.99 }, "≥ 0.99"},
		// s = 784, k = 14: 672/896 = 0.75.
		{"r=0.75", 791, 14, 672, 896, func(p float64) bool { return p <= 0.01 }, "≤ 0.01"},
	}
	for _, tt := range tests {
		if s := tt.words - 7; s-8*tt.edits != tt.num || s+8*tt.edits != tt.den {
			t.Fatalf("%s: fixture resemblance %d/%d is not (s−8k)/(s+8k)", tt.name, tt.num, tt.den)
		}
		r := float64(tt.num) / float64(tt.den)
		caught, sumEstimate := 0, 0.0
		for range pairs {
			a, b := editedPair(u, tt.words, tt.edits)
			sa, sb := s.Sign(a), s.Sign(b)
			if NearDuplicate(sa, sb) {
				caught++
			}
			sumEstimate += Resemblance(sa, sb)
		}
		rate, want := float64(caught)/pairs, catchProbability(r)
		sd := math.Sqrt(want * (1 - want) / pairs)
		meanEstimate := sumEstimate / pairs
		t.Logf("%s: caught %d of %d pairs = %.4f (guarantee %s); Broder's 1−(1−q)^6−6q(1−q)^5 with q = r^14: %.4f ± %.4f; mean Resemblance %.4f",
			tt.name, caught, pairs, rate, tt.guarantee, want, sd, meanEstimate)
		if !tt.rateOK(rate) {
			t.Errorf("%s: catch rate %.4f breaks the guarantee %s", tt.name, rate, tt.guarantee)
		}
		if math.Abs(rate-want) > 5*sd+1.0/pairs {
			t.Errorf("%s: catch rate %.4f is more than 5 standard deviations from the formula's %.4f", tt.name, rate, want)
		}
		// Resemblance estimates r with standard error sqrt(r(1−r)/84) per
		// pair; the mean of independent pairs must be within 5 of its own.
		if se := math.Sqrt(r * (1 - r) / NumPermutations / pairs); math.Abs(meanEstimate-r) > 5*se {
			t.Errorf("%s: mean Resemblance %.4f, want %.4f ± %.4f", tt.name, meanEstimate, r, 5*se)
		}
	}
}

// TestBroderCurve compares the catch rate with Broder's formula over the
// whole range of resemblance. It works on sets of random shingle
// fingerprints, which makes any resemblance exact: both sets draw from one
// union of 200 distinct values, sharing the first 200·r of them and
// splitting the rest evenly.
func TestBroderCurve(t *testing.T) {
	const pairs, union = 1000, 200
	s := newTestSigner(t, DefaultParams())
	rnd := rand.New(rand.NewPCG(11, 12))
	sketch := func(fps []uint64) Signature {
		var mins [NumPermutations]uint64
		for i := range mins {
			mins[i] = Prime
		}
		for _, fp := range fps {
			s.permute(&mins, fp)
		}
		return Signature{Kind: KindShingled, Mins: mins, Features: features(&mins)}
	}
	for _, shared := range []int{100, 140, 154, 170, 180, 190, 196, 200} {
		r := float64(shared) / union
		caught := 0
		for range pairs {
			seen := map[uint64]bool{}
			fps := make([]uint64, 0, union)
			for len(fps) < union {
				// Distinct below p, so the permutations keep them distinct.
				if v := rnd.Uint64N(Prime); !seen[v] {
					seen[v] = true
					fps = append(fps, v)
				}
			}
			only := (union - shared) / 2
			a := fps[:shared+only]
			b := append(fps[:shared:shared], fps[shared+only:]...)
			if NearDuplicate(sketch(a), sketch(b)) {
				caught++
			}
		}
		rate, want := float64(caught)/pairs, catchProbability(r)
		sd := math.Sqrt(want * (1 - want) / pairs)
		t.Logf("r=%.3f: caught %.3f, formula %.4f ± %.4f", r, rate, want, sd)
		if math.Abs(rate-want) > 5*sd+1.0/pairs {
			t.Errorf("r=%.3f: catch rate %.3f, formula %.4f ± %.4f", r, rate, want, sd)
		}
	}
}

func TestCatchProbability(t *testing.T) {
	// The figures quoted by Broder (2000) and SPEC.md §6.
	if p := catchProbability(0.975); p < 0.985 || p > 0.995 {
		t.Errorf("P(0.975) = %.4f, want about 0.99", p)
	}
	if p := catchProbability(0.77); p >= 0.01 {
		t.Errorf("P(0.77) = %.4f, want below 0.01", p)
	}
	if p := catchProbability(1); p != 1 {
		t.Errorf("P(1) = %v", p)
	}
	if p := catchProbability(0); p != 0 {
		t.Errorf("P(0) = %v", p)
	}
}

package refresh

import (
	"math"
	"time"
)

// Week is the paper's window for change rates.
const Week = 7 * 24 * time.Hour

// Check is one check of a page as a rate estimate sees it: the time since
// the previous check (or since the page was first fetched) and whether the
// page had changed in that time. Failed checks are not Checks: they say
// nothing about change.
type Check struct {
	Interval time.Duration
	Changed  bool
}

// WeeklyRate is the paper's change rate: changes divided by the weeks
// observed. It is 0 when nothing was observed.
func WeeklyRate(changes int, observed time.Duration) float64 {
	if observed <= 0 || changes <= 0 {
		return 0
	}
	return float64(changes) / (float64(observed) / float64(Week))
}

// SimpleRate is the paper's ratio over a list of checks: the checks that
// found a change divided by the weeks the checks cover. It counts at most
// one change per check, so it underestimates pages that change more often
// than they are checked.
func SimpleRate(checks []Check) float64 {
	var changes int
	var span time.Duration
	for _, c := range checks {
		span += c.Interval
		if c.Changed {
			changes++
		}
	}
	return WeeklyRate(changes, span)
}

// RegularRate is Cho and Garcia-Molina's bias-reduced estimator for a page
// checked n times at a fixed interval that found a change x times:
// −ln((n − x + 0.5)/(n + 0.5)) / interval, in changes per week.
func RegularRate(n, x int, interval time.Duration) float64 {
	if n <= 0 || x <= 0 || interval <= 0 {
		return 0
	}
	if x > n {
		x = n
	}
	r := -math.Log((float64(n-x) + 0.5) / (float64(n) + 0.5))
	return r / (float64(interval) / float64(Week))
}

// Estimator estimates the Poisson change rate of a page from checks at
// irregular intervals: the rate λ that maximizes the likelihood of the
// observed outcomes (a check after t finds a change with probability
// 1 − e^(−λt)) times a gamma prior on λ. The prior counts as PriorChanges
// changes seen in PriorChanges / PriorRate weeks, so a page never seen to
// change gets a small rate instead of 0, and one always seen to change a
// finite one. The zero Estimator has no prior (pure maximum likelihood:
// 0 without changes, +Inf when every check found one).
type Estimator struct {
	// PriorRate is the prior's mean rate in changes per week (e.g. the mean
	// rate of the collection). Used when PriorChanges > 0.
	PriorRate float64
	// PriorChanges is the weight of the prior, in changes.
	PriorChanges float64
}

// Obs summarizes the checks of one page for Estimator.Rate: the total
// time covered by checks that found no change and the interval of every
// check that found one, in weeks. Equal changed intervals may be merged
// into one entry with a count.
type Obs struct {
	Unchanged float64 // weeks covered by checks without change
	Changed   []Span  // checks that found a change
	Checks    int     // number of checks
	Weeks     float64 // weeks covered by all checks
	// Forget, when positive, is how fast older checks count less, in
	// weeks: Add first multiplies the weight of the checks before by
	// e^(−t/Forget), t the new check's interval, so that a check made τ
	// ago weighs about e^(−τ/Forget). A page's rate then follows its
	// recent behaviour (real pages change in bursts) instead of its whole
	// history. Zero: every check counts alike.
	Forget float64
}

// DefaultForget is the default policy's Obs.Forget, in weeks: chosen on
// the validation split of the change history (results/refresh), where
// 8, 13, 26 and 52 weeks were tried.
const DefaultForget = 13.0

// Span is Count checks of Weeks each that found a change.
type Span struct {
	Weeks float64
	Count float64 // a weight when Obs.Forget has faded it
}

// Add records one check in o.
func (o *Obs) Add(c Check) {
	w := float64(c.Interval) / float64(Week)
	if w <= 0 {
		return
	}
	if o.Forget > 0 {
		f := math.Exp(-w / o.Forget)
		o.Unchanged *= f
		o.Weeks *= f
		kept := o.Changed[:0]
		for _, sp := range o.Changed {
			if sp.Count *= f; sp.Count >= 1e-9 {
				kept = append(kept, sp) // a change faded to nothing is dropped
			}
		}
		o.Changed = kept
	}
	o.Checks++
	o.Weeks += w
	if !c.Changed {
		o.Unchanged += w
		return
	}
	if n := len(o.Changed); n > 0 && o.Changed[n-1].Weeks == w {
		o.Changed[n-1].Count++
		return
	}
	o.Changed = append(o.Changed, Span{Weeks: w, Count: 1})
}

// Changes is the number of checks that found a change (their weight
// when Forget has faded them).
func (o *Obs) Changes() float64 {
	n := 0.0
	for _, s := range o.Changed {
		n += s.Count
	}
	return n
}

// Rate returns the estimated change rate of checks, in changes per week.
func (e Estimator) Rate(checks []Check) float64 {
	var o Obs
	for _, c := range checks {
		o.Add(c)
	}
	return e.RateObs(&o)
}

// RateObs is Rate on a summary of checks.
func (e Estimator) RateObs(o *Obs) float64 {
	a := e.PriorChanges
	b := 0.0
	if a > 0 && e.PriorRate > 0 {
		b = a / e.PriorRate
	} else {
		a = 0
	}
	changed := o.Changes()
	if changed == 0 && a == 0 {
		return 0
	}
	if o.Unchanged == 0 && b == 0 {
		return math.Inf(1)
	}
	// The derivative of the log posterior,
	//   Σ_changed t/(e^(λt) − 1) − Σ_unchanged t + a/λ − b,
	// decreases in λ; find its root by bisection on log λ.
	deriv := func(l float64) float64 {
		d := a/l - b - o.Unchanged
		for _, s := range o.Changed {
			x := l * s.Weeks
			if x > 700 {
				continue
			}
			d += s.Count * s.Weeks / math.Expm1(x)
		}
		return d
	}
	lo, hi := 1e-9, 1e9
	if deriv(lo) <= 0 {
		return lo
	}
	if deriv(hi) >= 0 {
		return hi
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if deriv(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1+1e-7 {
			break
		}
	}
	return math.Sqrt(lo * hi)
}

package refresh

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"time"
)

// HourRule says at which hour of day a policy collects a page whose
// interval is a day or more.
type HourRule int

const (
	// AnyHour collects whenever the interval is over.
	AnyHour HourRule = iota
	// PaperHours is the paper's rule (PaperHour): 00:00 for pages that
	// change in the daytime, 12:00 for the others.
	PaperHours
	// AfterChanges collects just after the hour the page's changes are
	// seen (BestHour).
	AfterChanges
)

// String names the rule.
func (r HourRule) String() string {
	switch r {
	case PaperHours:
		return "paper-hours"
	case AfterChanges:
		return "after-changes"
	}
	return "any-hour"
}

// Spec is one policy of a simulation.
type Spec struct {
	// Name labels the policy in results.
	Name string
	// Policy shares the capacity.
	Policy Policy
	// Hour is the time-of-day rule.
	Hour HourRule
	// Oracle gives the policy every page's true rate over the scored
	// period (the number of changes there over the time the page exists
	// there) instead of learnt rates: an upper reference no real
	// scheduler has.
	Oracle bool
	// Natural ignores the capacity: every page is collected at its
	// group's own frequency (Paper and Paper6 only), as in the paper.
	Natural bool
	// Multiplicative ignores the capacity, the learnt rates and Policy:
	// every page starts at MultiplicativeStart, and each fetch sets its
	// next interval by MultiplicativeInterval, between the history's
	// CheckEvery and MultiplicativeMax.
	Multiplicative bool
	// Forget sets the learnt rates' Obs.Forget (weeks; 0: none).
	Forget float64
}

// The multiplicative policy's first and longest revisit intervals.
const (
	MultiplicativeStart = 24 * time.Hour // daily, as a static collection
	MultiplicativeMax   = 4 * Week       // the slowest group, 4G1
)

// MultiplicativeInterval is the multiplicative policy's next revisit
// interval after a fetch: iv halved when the fetch found a change, 1.2
// times iv when it did not, kept within [lo, hi].
func MultiplicativeInterval(iv time.Duration, changed bool, lo, hi time.Duration) time.Duration {
	f := 1.2
	if changed {
		f = 0.5
	}
	return min(max(time.Duration(float64(iv)*f), lo), hi)
}

// DefaultSpecs are the policies refresh-eval compares: the default
// (DefaultPolicy on learnt rates), Cho and Garcia-Molina's optimal
// allocation of learnt rates, uniform, the paper's groups (both variants,
// scaled to the capacity, with the paper's hours), proportional-to-rate
// and the oracle (the optimal allocation of the true rates).
func DefaultSpecs() []Spec {
	return []Spec{
		{Name: "default", Policy: DefaultPolicy, Forget: DefaultForget},
		{Name: "optimal", Policy: Optimal, Forget: DefaultForget},
		{Name: "uniform", Policy: Uniform},
		{Name: "groups", Policy: Paper, Hour: PaperHours},
		{Name: "groups6", Policy: Paper6, Hour: PaperHours},
		{Name: "proportional", Policy: Proportional, Forget: DefaultForget},
		{Name: "oracle", Policy: Optimal, Oracle: true},
	}
}

// SimConfig sets a replay of a history.
type SimConfig struct {
	// TrainEnd ends the training period, which starts with the history:
	// rates are learnt from the changes before it, observed at
	// CheckEvery. Required.
	TrainEnd time.Time
	// ScoreStart starts the scored period; default TrainEnd. Between
	// TrainEnd and ScoreStart nothing is learnt or scored.
	ScoreStart time.Time
	// End ends the scored period; default the history's end.
	End time.Time
	// CheckEvery is the interval at which the history was observed.
	// Default one hour.
	CheckEvery time.Duration
	// Capacities are the fetches per day tried. Required.
	Capacities []float64
	// Specs are the policies; default DefaultSpecs().
	Specs []Spec
	// Reallocate is how often learnt rates are turned into new
	// intervals. Default one week.
	Reallocate time.Duration
	// PriorChanges is the weight of the estimator's prior (the training
	// period's mean rate), in changes. Default 1.
	PriorChanges float64
}

// Validate reports the first setting that cannot be used.
func (c SimConfig) Validate() error {
	switch {
	case c.TrainEnd.IsZero():
		return errors.New("simulate: no end of the training period")
	case !c.ScoreStart.IsZero() && c.ScoreStart.Before(c.TrainEnd):
		return errors.New("simulate: the scored period starts before training ends")
	case !c.End.IsZero() && !c.End.After(c.TrainEnd):
		return errors.New("simulate: the scored period ends before training does")
	case len(c.Capacities) == 0:
		return errors.New("simulate: no capacity")
	case c.CheckEvery < 0, c.Reallocate < 0, c.PriorChanges < 0:
		return errors.New("simulate: negative setting")
	}
	for _, cp := range c.Capacities {
		if !(cp > 0) || math.IsInf(cp, 1) {
			return fmt.Errorf("simulate: capacity %v is not a positive number of fetches per day", cp)
		}
	}
	return nil
}

// Result is the score of one policy at one capacity over the scored
// period.
type Result struct {
	Policy   string  `json:"policy"`
	Capacity float64 `json:"capacity"` // fetches per day asked
	// Freshness is the share of page-time in which the stored copy was
	// the live one.
	Freshness float64 `json:"freshness"`
	// MeanAgeHours is the mean over page-time of the age of the stored
	// copy: 0 while fresh, else the time since the first change it missed.
	MeanAgeHours float64 `json:"mean_age_hours"`
	// Fetches is the number of fetches made, FetchesPerDay that over the
	// days scored.
	Fetches       int     `json:"fetches"`
	FetchesPerDay float64 `json:"fetches_per_day"`
	// Changes is the number of changes in the scored period; Missed the
	// ones whose version was never fetched (a later change came first).
	Changes     int     `json:"changes"`
	Missed      int     `json:"missed"`
	MissedShare float64 `json:"missed_share"`
	// GapToOracle is 1 − freshness / the oracle's freshness at the same
	// capacity (0 for the oracle, NaN without one).
	GapToOracle float64 `json:"gap_to_oracle"`
}

// SimReport is the outcome of Simulate.
type SimReport struct {
	TrainStart, TrainEnd, ScoreStart, End time.Time
	// Pages is the number of pages scored, TrainPages the ones with a
	// training history.
	Pages, TrainPages int
	// PriorRate is the training period's mean rate, changes per week.
	PriorRate float64
	// Groups and Groups6 count the pages with a training history by
	// their group (weekly rate of the training period), and Load and
	// Load6 are the paper's load figure for them (fetches per day, share
	// of a daily recollection).
	Groups, Groups6         [NumGroups]int `json:"-"`
	LoadPerDay, LoadShare   float64
	Load6PerDay, Load6Share float64
	// Results are ordered by capacity, then by Specs.
	Results []Result
}

// simPage is the fixed part of a page in a simulation.
type simPage struct {
	start    time.Time // first scored moment: max(birth, ScoreStart)
	changes  []time.Time
	train    Obs
	hours    Hours
	trueRate float64 // per week over the scored period
}

// Simulate replays h against every policy of cfg at every capacity. Each
// page's stored copy is the live one when its scored period starts (at
// ScoreStart, or when the page first appears); from then on a policy
// fetches it at the intervals it sets, and learns from what each fetch
// shows (whether the page changed since the previous one).
func Simulate(ctx context.Context, h *History, cfg SimConfig) (*SimReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h == nil || len(h.Pages) == 0 {
		return nil, errors.New("simulate: empty history")
	}
	if cfg.ScoreStart.IsZero() {
		cfg.ScoreStart = cfg.TrainEnd
	}
	if cfg.End.IsZero() {
		cfg.End = h.End
	}
	if !cfg.End.After(cfg.ScoreStart) {
		return nil, errors.New("simulate: the scored period is empty")
	}
	if cfg.CheckEvery == 0 {
		cfg.CheckEvery = time.Hour
	}
	if cfg.Reallocate == 0 {
		cfg.Reallocate = Week
	}
	if cfg.PriorChanges == 0 {
		cfg.PriorChanges = 1
	}
	if cfg.Specs == nil {
		cfg.Specs = DefaultSpecs()
	}
	rep := &SimReport{TrainStart: h.Start, TrainEnd: cfg.TrainEnd, ScoreStart: cfg.ScoreStart, End: cfg.End}
	pages, prior := preparePages(h, cfg, rep)
	rep.PriorRate = prior
	rep.LoadPerDay, rep.LoadShare = Load(rep.Groups)
	rep.Load6PerDay, rep.Load6Share = Load(rep.Groups6)
	rep.Pages = len(pages)
	if len(pages) == 0 {
		return nil, errors.New("simulate: no page exists in the scored period")
	}
	est := Estimator{PriorRate: prior, PriorChanges: cfg.PriorChanges}

	type job struct{ ci, si int }
	results := make([]Result, len(cfg.Capacities)*len(cfg.Specs))
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := simulate(pages, cfg, cfg.Specs[j.si], cfg.Capacities[j.ci], est)
				results[j.ci*len(cfg.Specs)+j.si] = r
			}
		}()
	}
	var err error
feed:
	for ci := range cfg.Capacities {
		for si := range cfg.Specs {
			select {
			case jobs <- job{ci, si}:
			case <-ctx.Done():
				err = ctx.Err()
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for ci := range cfg.Capacities {
		row := results[ci*len(cfg.Specs) : (ci+1)*len(cfg.Specs)]
		oracle := math.NaN()
		for _, r := range row {
			if r.Policy == "oracle" {
				oracle = r.Freshness
			}
		}
		for i := range row {
			row[i].GapToOracle = 1 - row[i].Freshness/oracle
		}
	}
	rep.Results = results
	return rep, nil
}

// preparePages turns the history into the pages of the scored period,
// with their training observations; it returns them and the training
// period's mean rate (changes per week).
func preparePages(h *History, cfg SimConfig, rep *SimReport) ([]simPage, float64) {
	var pages []simPage
	var trainChanges int
	var trainWeeks float64
	for i := range h.Pages {
		ev := h.Pages[i].Events
		if len(ev) == 0 || !ev[0].Time.Before(cfg.End) {
			continue
		}
		p := simPage{start: cfg.ScoreStart}
		birth := ev[0].Time
		if birth.After(p.start) {
			p.start = birth
		}
		// Training: the page was checked every CheckEvery from its birth
		// to TrainEnd; each change was seen at the first check after it.
		if birth.Before(cfg.TrainEnd) {
			rep.TrainPages++
			n := 0
			for _, e := range ev[1:] {
				if !e.Time.Before(cfg.TrainEnd) {
					break
				}
				n++
				p.hours.Add(e.Time)
			}
			span := cfg.TrainEnd.Sub(birth)
			step := float64(cfg.CheckEvery) / float64(Week)
			p.train.Checks = int(span / cfg.CheckEvery)
			p.train.Weeks = float64(span) / float64(Week)
			p.train.Unchanged = max(p.train.Weeks-float64(n)*step, 0)
			if n > 0 {
				p.train.Changed = []Span{{Weeks: step, Count: float64(n)}}
			}
			trainChanges += n
			trainWeeks += p.train.Weeks
			wr := WeeklyRate(n, span)
			rep.Groups[GroupOf(wr, Groups16)]++
			rep.Groups6[GroupOf(wr, Groups6)]++
		}
		for _, e := range ev[1:] {
			if e.Time.After(p.start) && !e.Time.After(cfg.End) {
				p.changes = append(p.changes, e.Time)
			}
		}
		p.trueRate = WeeklyRate(len(p.changes), cfg.End.Sub(p.start))
		pages = append(pages, p)
	}
	prior := 0.0
	if trainWeeks > 0 {
		prior = float64(trainChanges) / trainWeeks
	}
	if prior <= 0 {
		prior = 1.0 / 52
	}
	return pages, prior
}

// pageState is the moving part of a page in one policy's replay.
type pageState struct {
	obs      Obs
	dirty    bool // obs changed since rate was estimated
	rate     float64
	last     time.Time // last fetch (virtual before the page's start)
	seen     time.Time // the later of last and the page's start
	next     int       // index of the first change after seen
	interval time.Duration
	hour     int
}

func simulate(pages []simPage, cfg SimConfig, sp Spec, capacity float64, est Estimator) Result {
	res := Result{Policy: sp.Name, Capacity: capacity}
	st := make([]pageState, len(pages))
	for i := range pages {
		p := &pages[i]
		s := &st[i]
		s.obs = p.train
		s.obs.Changed = append([]Span(nil), p.train.Changed...)
		s.obs.Forget = sp.Forget
		s.rate = est.RateObs(&s.obs)
		if sp.Oracle {
			s.rate = p.trueRate
		}
		s.hour = -1
		switch sp.Hour {
		case PaperHours:
			s.hour = PaperHour(&p.hours)
		case AfterChanges:
			s.hour = BestHour(&p.hours, 0)
		}
		s.seen = p.start
		res.Changes += len(p.changes)
	}
	var (
		active  []int
		rates   []float64
		freqs   []float64
		fresh   float64 // page-hours fresh
		total   float64 // page-hours scored
		ageSum  float64 // hour² (integral of age)
		started = make([]bool, len(pages))
	)
	// order pages by start so that activation is a moving pointer.
	order := make([]int, len(pages))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pages[order[a]].start.Before(pages[order[b]].start) })
	oi := 0
	hours := func(d time.Duration) float64 { return float64(d) / float64(time.Hour) }
	// account closes the stretch from st.seen to t, at which the page is
	// fetched (fetch) or the replay ends.
	account := func(i int, t time.Time, fetch bool) (changed bool) {
		p, s := &pages[i], &st[i]
		a := s.seen
		if t.Before(a) {
			return false
		}
		k := 0
		for s.next+k < len(p.changes) && !p.changes[s.next+k].After(t) {
			k++
		}
		total += hours(t.Sub(a))
		if k == 0 {
			fresh += hours(t.Sub(a))
		} else {
			c := p.changes[s.next]
			fresh += hours(c.Sub(a))
			age := hours(t.Sub(c))
			ageSum += age * age / 2
		}
		if fetch {
			res.Fetches++
			if k > 0 {
				res.Missed += k - 1
			}
			if !sp.Oracle && !sp.Multiplicative {
				s.obs.Add(Check{Interval: t.Sub(a), Changed: k > 0})
				s.dirty = true
			}
			s.last, s.seen = t, t
			s.next += k
		} else if k > 0 {
			// The replay ends: changes after the last fetch but the
			// latest were never seen either.
			res.Missed += k - 1
		}
		return k > 0
	}
	for now := cfg.ScoreStart; now.Before(cfg.End); now = now.Add(cfg.Reallocate) {
		stepEnd := now.Add(cfg.Reallocate)
		if stepEnd.After(cfg.End) {
			stepEnd = cfg.End
		}
		// Pages that appear during this step join at its start (they are
		// scored only from their own start).
		for oi < len(order) && pages[order[oi]].start.Before(stepEnd) {
			active = append(active, order[oi])
			oi++
		}
		if len(active) == 0 {
			continue
		}
		changed := len(active) != len(rates)
		rates = rates[:0]
		for _, i := range active {
			s := &st[i]
			if s.dirty {
				s.rate = est.RateObs(&s.obs)
				s.dirty = false
				changed = true
			}
			rates = append(rates, s.rate)
		}
		if sp.Multiplicative {
			for _, i := range active {
				if !started[i] {
					started[i] = true
					st[i].interval = MultiplicativeStart
					st[i].last = pages[i].start.Add(-time.Duration(float64(MultiplicativeStart) * frac(i)))
				}
			}
			goto fetch
		}
		if !changed && !sp.Natural {
			goto fetch
		}
		if cap(freqs) < len(rates) {
			freqs = make([]float64, len(rates), 2*len(rates))
		}
		freqs = freqs[:len(rates)]
		if sp.Natural {
			g := Groups16
			if sp.Policy == Paper6 {
				g = Groups6
			}
			for k, r := range rates {
				freqs[k] = GroupOf(r, g).PerWeek() / 7
			}
		} else {
			AllocateInto(freqs, sp.Policy, rates, capacity)
		}
		for k, i := range active {
			s := &st[i]
			var iv time.Duration
			if freqs[k] > 0 {
				iv = time.Duration(float64(24*time.Hour) / freqs[k])
			}
			if !started[i] {
				started[i] = true
				// Spread the first fetches: pretend page k was last
				// fetched a share of its interval ago.
				s.last = pages[i].start
				if iv > 0 {
					s.last = s.last.Add(-time.Duration(float64(iv) * frac(i)))
				}
			}
			s.interval = iv
		}
	fetch:
		for _, i := range active {
			s := &st[i]
			if s.interval <= 0 {
				continue
			}
			for {
				t := nextFetch(s.last, s.interval, s.hour)
				if t.Before(s.seen) {
					t = s.seen
				}
				if t.Before(now) {
					t = now
				}
				if !t.Before(stepEnd) {
					break
				}
				found := account(i, t, true)
				if sp.Multiplicative {
					s.interval = MultiplicativeInterval(s.interval, found, cfg.CheckEvery, MultiplicativeMax)
				}
			}
		}
	}
	for _, i := range active {
		account(i, cfg.End, false)
	}
	days := float64(cfg.End.Sub(cfg.ScoreStart)) / float64(24*time.Hour)
	if total > 0 {
		res.Freshness = fresh / total
		res.MeanAgeHours = ageSum / total
	}
	res.FetchesPerDay = float64(res.Fetches) / days
	if res.Changes > 0 {
		res.MissedShare = float64(res.Missed) / float64(res.Changes)
	}
	return res
}

// nextFetch is the next collection after last at the interval, at hour of
// day hour (−1: any) when the interval is a day or more; never at or
// before last.
func nextFetch(last time.Time, iv time.Duration, hour int) time.Time {
	t := last.Add(iv)
	if hour < 0 || iv < 24*time.Hour {
		return t
	}
	a := AtHour(t, hour)
	for !a.After(last) {
		a = a.Add(24 * time.Hour)
	}
	return a
}

// frac is a well-spread number in [0, 1) for index i (the golden-ratio
// sequence), so that the first fetches of pages are spread over their
// intervals.
func frac(i int) float64 {
	_, f := math.Modf(float64(i+1) * 0.6180339887498949)
	return f
}

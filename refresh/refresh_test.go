package refresh

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/internal/sharedtest"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) // a Monday

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWeeklyRate(t *testing.T) {
	tests := []struct {
		changes int
		span    time.Duration
		want    float64
	}{
		{0, 3 * Week, 0},
		{3, 3 * Week, 1},
		{6, 3 * Week, 2},
		{1, 4 * Week, 0.25},
		{5, 0, 0},
	}
	for _, tt := range tests {
		if got := WeeklyRate(tt.changes, tt.span); !near(got, tt.want, 1e-12) {
			t.Errorf("WeeklyRate(%d, %v) = %v, want %v", tt.changes, tt.span, got, tt.want)
		}
	}
}

func TestSimpleRate(t *testing.T) {
	// Three weeks of daily checks, 6 of them found a change: 2 a week.
	var checks []Check
	for d := range 21 {
		checks = append(checks, Check{Interval: 24 * time.Hour, Changed: d%7 == 0 || d%7 == 3})
	}
	if got := SimpleRate(checks); !near(got, 2, 1e-12) {
		t.Errorf("SimpleRate = %v, want 2", got)
	}
}

func TestRegularRate(t *testing.T) {
	// 10 daily checks, 5 found a change: −ln(5.5/10.5) per day.
	want := -math.Log(5.5/10.5) * 7
	if got := RegularRate(10, 5, 24*time.Hour); !near(got, want, 1e-12) {
		t.Errorf("RegularRate = %v, want %v", got, want)
	}
	// Every check found a change: still finite.
	if got := RegularRate(10, 10, 24*time.Hour); math.IsInf(got, 0) || got <= 7 {
		t.Errorf("RegularRate all changed = %v, want finite above one a day", got)
	}
	if got := RegularRate(10, 0, time.Hour); got != 0 {
		t.Errorf("RegularRate no change = %v", got)
	}
}

func TestEstimator_Rate(t *testing.T) {
	// Regular checks without a prior: the MLE is −ln(1 − x/n)/I.
	var checks []Check
	for i := range 20 {
		checks = append(checks, Check{Interval: 24 * time.Hour, Changed: i%4 == 0})
	}
	want := -math.Log(1-5.0/20) * 7
	if got := (Estimator{}).Rate(checks); !near(got, want, 1e-5*want) {
		t.Errorf("Rate regular = %v, want %v", got, want)
	}
	// No change and no prior: 0; with a prior: below the prior.
	none := []Check{{Interval: Week}, {Interval: Week}}
	if got := (Estimator{}).Rate(none); got != 0 {
		t.Errorf("Rate without change = %v, want 0", got)
	}
	e := Estimator{PriorRate: 1, PriorChanges: 1}
	if got := e.Rate(none); got <= 0 || got >= 1 {
		t.Errorf("Rate without change, prior 1/week = %v, want in (0, 1)", got)
	}
	// Nothing observed: the prior.
	if got := e.Rate(nil); !near(got, 1, 1e-5) {
		t.Errorf("Rate of nothing = %v, want the prior 1", got)
	}
	// Irregular checks of a Poisson page: close to the true rate where
	// the simple ratio is far below it.
	rng := rand.New(rand.NewPCG(1, 2))
	lambda := 3.0 // per week
	checks = checks[:0]
	for range 4000 {
		iv := time.Duration((0.1 + rng.Float64()) * float64(Week))
		p := 1 - math.Exp(-lambda*float64(iv)/float64(Week))
		checks = append(checks, Check{Interval: iv, Changed: rng.Float64() < p})
	}
	got := (Estimator{}).Rate(checks)
	simple := SimpleRate(checks)
	if math.Abs(got-lambda)/lambda > 0.08 {
		t.Errorf("Rate irregular = %v, want about %v", got, lambda)
	}
	if simple > 0.7*lambda {
		t.Errorf("SimpleRate irregular = %v, expected well under %v", simple, lambda)
	}
}

func TestGroupOf(t *testing.T) {
	tests := []struct {
		rate     float64
		want16   string
		want6    string
		perWeek6 float64
	}{
		{0, "4G1", "4G1", 0.25},
		{0.24, "4G1", "4G1", 0.25},
		{0.25, "2G1", "2G1", 0.5},
		{0.49, "2G1", "2G1", 0.5},
		{0.5, "G1", "G1", 1},
		{1.49, "G1", "G1", 1},
		{1.5, "G2", "G3", 3},
		{4.4, "G4", "G3", 3},
		{4.5, "G5", "G7", 7},
		{10.49, "G10", "G7", 7},
		{10.5, "G11", "G14", 14},
		{13.6, "G14", "G14", 14},
		{50, "G14", "G14", 14},
		{math.NaN(), "4G1", "4G1", 0.25},
		{-3, "4G1", "4G1", 0.25},
	}
	for _, tt := range tests {
		g16, g6 := GroupOf(tt.rate, Groups16), GroupOf(tt.rate, Groups6)
		if g16.String() != tt.want16 || g6.String() != tt.want6 || g6.PerWeek() != tt.perWeek6 {
			t.Errorf("GroupOf(%v) = %v / %v (%v a week), want %v / %v (%v)", tt.rate, g16, g6, g6.PerWeek(), tt.want16, tt.want6, tt.perWeek6)
		}
	}
}

func TestGroup_Interval(t *testing.T) {
	tests := []struct {
		g    Group
		want time.Duration
	}{
		{G(1), Week}, {G(7), 24 * time.Hour}, {G(14), 12 * time.Hour},
		{Group2G1, 2 * Week}, {Group4G1, 4 * Week},
	}
	for _, tt := range tests {
		if got := tt.g.Interval(); got != tt.want {
			t.Errorf("%v.Interval() = %v, want %v", tt.g, got, tt.want)
		}
		back, err := ParseGroup(tt.g.String())
		if err != nil || back != tt.g {
			t.Errorf("ParseGroup(%q) = %v, %v", tt.g.String(), back, err)
		}
	}
}

func TestLoad(t *testing.T) {
	var c [NumGroups]int
	c[G(7)] = 10     // 10 a day
	c[G(14)] = 5     // 10 a day
	c[Group4G1] = 28 // 1 a day
	c[G(1)] = 7      // 1 a day
	perDay, share := Load(c)
	if !near(perDay, 22, 1e-9) || !near(share, 22.0/50, 1e-9) {
		t.Errorf("Load = %v, %v; want 22, 0.44", perDay, share)
	}
}

func TestPaperHour(t *testing.T) {
	var day, night Hours
	for range 5 {
		day.Add(t0.Add(10 * time.Hour))
		night.Add(t0.Add(22 * time.Hour))
	}
	night.Add(t0.Add(11 * time.Hour))
	if got := PaperHour(&day); got != 0 {
		t.Errorf("PaperHour(daytime changes) = %d, want 0", got)
	}
	if got := PaperHour(&night); got != 12 {
		t.Errorf("PaperHour(night changes) = %d, want 12", got)
	}
	if got := BestHour(&day, 0); got != 11 {
		t.Errorf("BestHour(changes at 10:xx) = %d, want 11", got)
	}
	var none Hours
	if got := BestHour(&none, 3); got != 3 {
		t.Errorf("BestHour(none) = %d, want the default", got)
	}
}

func TestAllocate(t *testing.T) {
	rates := []float64{0.1, 1, 10, 100}
	for _, p := range []Policy{Optimal, Uniform, Proportional, Paper, Paper6, SquareRoot} {
		f := Allocate(p, rates, 8)
		sum := 0.0
		for _, x := range f {
			sum += x
		}
		if !near(sum, 8, 1e-3) {
			t.Errorf("%v: frequencies sum to %v, want 8", p, sum)
		}
	}
	u := Allocate(Uniform, rates, 8)
	if u[0] != 2 || u[3] != 2 {
		t.Errorf("uniform = %v", u)
	}
	pr := Allocate(Proportional, rates, 8)
	if !near(pr[3]/pr[2], 10, 1e-9) {
		t.Errorf("proportional = %v", pr)
	}
	// The optimum gives nothing to a page that changes far too often for
	// the capacity, and beats uniform and proportional in expected
	// freshness.
	o := Allocate(Optimal, []float64{0.1, 1, 10, 1000}, 1)
	if o[3] != 0 {
		t.Errorf("optimal gives %v a day to a page changing 1000 times a week", o[3])
	}
	fresh := func(f []float64) float64 {
		s := 0.0
		for i, r := range rates {
			if f[i] == 0 {
				continue
			}
			s += Freshness(r / 7 / f[i])
		}
		return s
	}
	fo := fresh(Allocate(Optimal, rates, 2))
	for _, p := range []Policy{Uniform, Proportional, Paper} {
		if fp := fresh(Allocate(p, rates, 2)); fp > fo+1e-6 {
			t.Errorf("%v expected freshness %v beats optimal %v", p, fp, fo)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{Optimal, Uniform, Proportional, Paper, Paper6, SquareRoot} {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("fastest"); err == nil {
		t.Error("ParsePolicy(fastest) succeeded")
	}
}

func TestQueue_PopDue(t *testing.T) {
	var q Queue
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		q.Push(int64(i), t0.Add(time.Duration(rng.IntN(1000))*time.Minute))
	}
	got := q.PopDue(nil, t0.Add(500*time.Minute), 2000)
	for i, it := range got {
		if it.Due.After(t0.Add(500 * time.Minute)) {
			t.Fatalf("popped %v, not due", it)
		}
		if i > 0 && it.Due.Before(got[i-1].Due) {
			t.Fatalf("popped out of order: %v after %v", it, got[i-1])
		}
	}
	if len(got)+q.Len() != 1000 {
		t.Errorf("popped %d, left %d", len(got), q.Len())
	}
	if n, ok := q.Next(); !ok || !n.Due.After(t0.Add(500*time.Minute)) {
		t.Errorf("next = %v, %v", n, ok)
	}
	if got := q.PopDue(nil, t0.Add(2000*time.Minute), 3); len(got) != 3 {
		t.Errorf("max 3 popped %d", len(got))
	}
}

func TestReadHistory(t *testing.T) {
	in := `{"url": "/a", "time": "2024-01-01T10:00:00Z", "text": "x"}
{"url": "/a", "time": "2024-01-03T10:00:00Z", "text": "y"}
this is not json
{"url": "/b", "time": "2024-01-02T00:00:00Z"}
{"url": "", "time": "2024-01-02T00:00:00Z"}
{"url": "/c"}

{"url": "/b", "time": "2024-01-01T00:00:00Z", "deleted": false}
{"url": "/b", "time": "2024-01-05T00:00:00Z", "deleted": true, "text_omitted": 123}`
	for _, gz := range []bool{false, true} {
		var r bytes.Buffer
		if gz {
			zw := gzip.NewWriter(&r)
			zw.Write([]byte(in))
			zw.Close()
		} else {
			r.WriteString(in)
		}
		h, err := ReadHistory(&r)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Pages) != 2 || h.Pages[0].URL != "/a" || h.Pages[1].URL != "/b" {
			t.Fatalf("pages = %+v", h.Pages)
		}
		b := h.Pages[1].Events
		if len(b) != 3 || !b[0].Time.Equal(t0) || !b[2].Deleted {
			t.Errorf("page /b events = %+v, want 3 in time order, the last deleted", b)
		}
		if h.Changes() != 3 || h.Lines != 9 {
			t.Errorf("changes %d, lines %d; want 3, 9", h.Changes(), h.Lines)
		}
		if len(h.Bad) != 3 || h.BadCount != 3 || h.Bad[0].Line != 3 || !strings.Contains(h.Bad[1].Err, "no url") || !strings.Contains(h.Bad[2].Err, "no time") {
			t.Errorf("bad lines = %+v", h.Bad)
		}
		if !h.Start.Equal(t0) || !h.End.Equal(t0.Add(4*24*time.Hour)) {
			t.Errorf("start %v end %v", h.Start, h.End)
		}
	}
}

func FuzzReadHistory(f *testing.F) {
	f.Add([]byte(`{"url": "/a", "time": "2024-01-01T10:00:00Z", "text": "x"}` + "\n" + `{"url": "/a", "time": "2024-01-03T10:00:00Z", "deleted": true}`))
	f.Add([]byte("{\n}\n\x1f\x8b"))
	f.Add([]byte(`{"url": 3, "time": "yesterday"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil {
			return
		}
		events := 0
		for _, p := range h.Pages {
			if len(p.Events) == 0 {
				t.Fatalf("page %q without events", p.URL)
			}
			for i := 1; i < len(p.Events); i++ {
				if p.Events[i].Time.Before(p.Events[i-1].Time) {
					t.Fatalf("page %q out of order", p.URL)
				}
			}
			events += len(p.Events)
		}
		if events > h.Lines {
			t.Fatalf("%d events from %d lines", events, h.Lines)
		}
	})
}

// poissonHistory makes n pages changing as Poisson processes of rate
// perWeek from start for the given weeks.
func poissonHistory(n int, perWeek float64, weeks int, seed uint64) *History {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	h := &History{Start: t0, End: t0.Add(time.Duration(weeks) * Week)}
	for i := range n {
		p := PageHistory{URL: fmt.Sprintf("/p%d", i), Events: []Event{{Time: t0}}}
		t := t0
		for {
			t = t.Add(time.Duration(rng.ExpFloat64() / perWeek * float64(Week)))
			if t.After(h.End) {
				break
			}
			p.Events = append(p.Events, Event{Time: t})
		}
		h.Pages = append(h.Pages, p)
	}
	return h
}

// TestSimulate_closedForm checks the replay against the expected
// freshness of Poisson pages revisited at a fixed interval I:
// (1 − e^(−λI)) / (λI).
func TestSimulate_closedForm(t *testing.T) {
	const pages, perWeek = 200, 2.0
	h := poissonHistory(pages, perWeek, 60, 7)
	for _, capacity := range []float64{20, 50, 200} {
		rep, err := Simulate(context.Background(), h, SimConfig{
			TrainEnd: t0.Add(8 * Week), Capacities: []float64{capacity},
			Specs: []Spec{{Name: "uniform", Policy: Uniform}},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		days := float64(pages) / capacity
		want := Freshness(perWeek / 7 * days)
		if math.Abs(r.Freshness-want) > 0.015 {
			t.Errorf("capacity %v: freshness %.4f, closed form %.4f", capacity, r.Freshness, want)
		}
		if math.Abs(r.FetchesPerDay-capacity)/capacity > 0.02 {
			t.Errorf("capacity %v: %.2f fetches a day", capacity, r.FetchesPerDay)
		}
		// Missed changes: all changes of an interval but the last.
		wantMissed := 1 - (1-math.Exp(-perWeek/7*days))/(perWeek/7*days)
		if math.Abs(r.MissedShare-wantMissed) > 0.02 {
			t.Errorf("capacity %v: missed %.4f, closed form %.4f", capacity, r.MissedShare, wantMissed)
		}
	}
}

// TestSimulate_mixedRates: on Poisson pages of very different rates the
// optimal allocation learns them and beats uniform, and the oracle is at
// least as good. (The square-root default does not: it spends on pages
// that change far too often to be kept fresh; real pages are not Poisson.)
func TestSimulate_mixedRates(t *testing.T) {
	h := poissonHistory(100, 0.2, 40, 11)
	fast := poissonHistory(100, 5, 40, 12)
	for i := range fast.Pages {
		fast.Pages[i].URL += "f"
	}
	h.Pages = append(h.Pages, fast.Pages...)
	rep, err := Simulate(context.Background(), h, SimConfig{TrainEnd: t0.Add(10 * Week), Capacities: []float64{10, 40}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Result{}
	for _, r := range rep.Results {
		if r.Capacity == 10 {
			by[r.Policy] = r
		}
	}
	for _, p := range []string{"optimal"} {
		if by[p].Freshness <= by["uniform"].Freshness {
			t.Errorf("%s %.4f not above uniform %.4f", p, by[p].Freshness, by["uniform"].Freshness)
		}
	}
	if by["oracle"].Freshness < by["optimal"].Freshness-0.01 {
		t.Errorf("oracle %.4f below optimal %.4f", by["oracle"].Freshness, by["optimal"].Freshness)
	}
}

func TestSimulate_badConfig(t *testing.T) {
	h := poissonHistory(2, 1, 4, 1)
	for _, cfg := range []SimConfig{
		{},
		{TrainEnd: t0.Add(Week)},
		{TrainEnd: t0.Add(Week), Capacities: []float64{-1}},
		{TrainEnd: t0.Add(Week), Capacities: []float64{1}, End: t0},
	} {
		if _, err := Simulate(context.Background(), h, cfg); err == nil {
			t.Errorf("Simulate(%+v) succeeded", cfg)
		}
	}
	if _, err := Simulate(context.Background(), &History{}, SimConfig{TrainEnd: t0, Capacities: []float64{1}}); err == nil {
		t.Error("Simulate(empty history) succeeded")
	}
}

// TestSimulate_shared replays the shared change history: at every
// capacity the default policy is at least as fresh as uniform and as the
// paper's groups.
func TestSimulate_shared(t *testing.T) {
	path := sharedtest.Path(t, "changes/stalker-2021-2024.jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Bad) != 0 {
		t.Errorf("bad lines in the shared history: %v", h.Bad)
	}
	rep, err := Simulate(context.Background(), h, SimConfig{
		TrainEnd: h.Start.Add(h.End.Sub(h.Start) / 2), Capacities: []float64{5, 20, 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(DefaultSpecs())
	for ci := range 3 {
		by := map[string]Result{}
		for _, r := range rep.Results[ci*n : ci*n+n] {
			by[r.Policy] = r
		}
		def := by["default"]
		for _, other := range []string{"uniform", "groups", "groups6"} {
			if def.Freshness < by[other].Freshness {
				t.Errorf("capacity %v: optimal %.4f below %s %.4f", def.Capacity, def.Freshness, other, by[other].Freshness)
			}
		}
	}
}

// BenchmarkQueue_PopDue measures one scheduling decision at 1,000,000
// pages: take the 16 pages due first and put them back with their next
// due time.
func BenchmarkQueue_PopDue(b *testing.B) {
	const n = 1_000_000
	var q Queue
	q.Grow(n)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range n {
		q.Push(int64(i), t0.Add(time.Duration(rng.Int64N(int64(4*Week)))))
	}
	never := t0.AddDate(100, 0, 0)
	buf := make([]Item, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = q.PopDue(buf[:0], never, 16)
		if len(buf) != 16 {
			b.Fatalf("popped %d", len(buf))
		}
		for _, it := range buf {
			q.Push(it.ID, it.Due.Add(4*Week+time.Duration(it.ID%977)*time.Minute))
		}
	}
}

// BenchmarkQueue_memory reports the live heap the queue holds per page at
// 10⁴, 10⁵ and 10⁶ pages: about the same at every size (16 bytes a page
// and the slack of the slice's growth).
func BenchmarkQueue_memory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var bytesPerPage float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				q := &Queue{}
				for i := range n {
					q.Push(int64(i), t0.Add(time.Duration(i)*time.Second))
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				bytesPerPage = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				runtime.KeepAlive(q)
			}
			b.ReportMetric(bytesPerPage, "B/page")
		})
	}
}

func BenchmarkAllocate_optimal(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	rates := make([]float64, 10_000)
	for i := range rates {
		rates[i] = rng.ExpFloat64()
	}
	f := make([]float64, len(rates))
	for b.Loop() {
		AllocateInto(f, Optimal, rates, 1_000)
	}
}

func BenchmarkEstimator_Rate(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	var o Obs
	for range 200 {
		o.Add(Check{Interval: time.Duration(rng.IntN(100)+1) * time.Hour, Changed: rng.IntN(3) == 0})
	}
	e := Estimator{PriorRate: 0.2, PriorChanges: 1}
	for b.Loop() {
		e.RateObs(&o)
	}
}

func TestMultiplicativeInterval(t *testing.T) {
	const lo, hi = time.Hour, 4 * Week
	tests := []struct {
		iv      time.Duration
		changed bool
		want    time.Duration
	}{
		{24 * time.Hour, true, 12 * time.Hour},
		{24 * time.Hour, false, 28*time.Hour + 48*time.Minute}, // 24 h × 1.2 = 28.8 h
		{90 * time.Minute, true, time.Hour},                    // 45 min, raised to lo
		{hi, false, hi},                                        // 4.8 weeks, cut to hi
		{hi, true, 2 * Week},
	}
	for _, tt := range tests {
		if got := MultiplicativeInterval(tt.iv, tt.changed, lo, hi); got != tt.want {
			t.Errorf("MultiplicativeInterval(%v, %v) = %v, want %v", tt.iv, tt.changed, got, tt.want)
		}
	}
}

// TestSimulate_multiplicative replays two pages over 120 hours. Page 0
// never changes; its first fetch is at 24 h × (1 − 0.618…) = 9.17 h, then
// every interval is 1.2 times the one before: 28.8, 34.56, 41.47 h give
// fetches at 37.97, 72.53 and 114.00 h, and the next (49.77 h later) is
// past the end: 4 fetches. Page 1 changes once, at 10 h; its first fetch,
// at 24 h × (1 − 0.236…) = 18.33 h, finds the change and halves the
// interval to 12 h, then 14.4, 17.28, 20.74 and 24.88 h give fetches at
// 30.33, 44.73, 62.01, 82.75 and 107.63 h: 6 fetches. Page 1 is stale
// from 10 h to 18.33 h, so freshness is 1 − 8.33/240.
func TestSimulate_multiplicative(t *testing.T) {
	start := t0.Add(Week)
	h := &History{Start: t0, End: start.Add(120 * time.Hour), Pages: []PageHistory{
		{URL: "/still", Events: []Event{{Time: t0}}},
		{URL: "/once", Events: []Event{{Time: t0}, {Time: start.Add(10 * time.Hour)}}},
	}}
	rep, err := Simulate(context.Background(), h, SimConfig{TrainEnd: start, Capacities: []float64{1},
		Specs: []Spec{{Name: "multiplicative", Multiplicative: true}}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	stale := 24*(1-math.Mod(2*0.6180339887498949, 1)) - 10 // hours page 1 is stale
	wantFresh := 1 - stale/240
	if r.Fetches != 10 || r.Changes != 1 || r.Missed != 0 || math.Abs(r.Freshness-wantFresh) > 1e-9 {
		t.Errorf("fetches %d, changes %d, missed %d, freshness %.6f; want 10, 1, 0, %.6f", r.Fetches, r.Changes, r.Missed, r.Freshness, wantFresh)
	}
}

// TestObs_Forget: each check added fades the ones before by
// e^(−interval/Forget).
func TestObs_Forget(t *testing.T) {
	o := Obs{Forget: 1}
	o.Add(Check{Interval: Week})                // unchanged: weight 1
	o.Add(Check{Interval: Week, Changed: true}) // fades it to e^-1
	o.Add(Check{Interval: Week, Changed: true}) // e^-2, and the first change e^-1
	e := math.Exp(-1)
	if !closeTo(o.Unchanged, e*e) || !closeTo(o.Weeks, e*e+e+1) || len(o.Changed) != 1 || !closeTo(o.Changed[0].Count, e+1) || !closeTo(o.Changes(), e+1) {
		t.Errorf("obs %+v, want unchanged %.4f, weeks %.4f, one span of weight %.4f", o, e*e, e*e+e+1, e+1)
	}
	// Changes faded to nothing are dropped, so a page's observations stay
	// small however long it is watched.
	q := Obs{Forget: 1}
	for i := range 200 {
		q.Add(Check{Interval: Week + time.Duration(i)*time.Minute, Changed: true})
	}
	if n := len(q.Changed); n > 25 {
		t.Errorf("%d spans kept after 200 changes a week apart with Forget 1, want the recent ones only", n)
	}
	// Without Forget every check counts 1.
	p := Obs{}
	for range 3 {
		p.Add(Check{Interval: Week, Changed: true})
	}
	if p.Changes() != 3 || p.Weeks != 3 {
		t.Errorf("obs %+v, want 3 changes over 3 weeks", p)
	}
	// A page that changed often long ago and not lately: forgetting
	// gives it a lower rate.
	est := Estimator{PriorRate: 1, PriorChanges: 1}
	rate := func(forget float64) float64 {
		o := Obs{Forget: forget}
		for range 10 {
			o.Add(Check{Interval: Week / 7, Changed: true})
		}
		for range 20 {
			o.Add(Check{Interval: Week})
		}
		return est.RateObs(&o)
	}
	if f, n := rate(4), rate(0); !(f < n) {
		t.Errorf("rate forgetting %.3f, not forgetting %.3f: want the old burst to weigh less", f, n)
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

package revisit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/scent-crawler/scent/refresh"
)

// Due is a page's place in the refresh schedule.
type Due struct {
	Next  time.Time // when the page is next checked
	Rate  float64   // estimated changes per week
	Group string    // revisit group (refresh.Group's name)
	Hour  int       // hour of day (UTC) it is collected at; -1: any
	Gone  bool      // the page answered 410 Gone: it is not checked again
}

// WatchStore is a Store that also keeps the refresh schedule.
type WatchStore interface {
	Store
	// EachCheck calls fn for every change-log row of the crawl's pages in
	// the order the checks were recorded.
	EachCheck(ctx context.Context, crawl int64, fn func(*Check) error) error
	// Schedule returns the stored schedule of the crawl's pages by ID.
	Schedule(ctx context.Context, crawl int64) (map[int64]Due, error)
	// RecordScheduledCheck is RecordCheck that also stores the page's
	// next due time, in one transaction.
	RecordScheduledCheck(ctx context.Context, c *Check, d Due) error
	// ChecksSince counts the crawl's checks at or after t.
	ChecksSince(ctx context.Context, crawl int64, t time.Time) (int, error)
}

// WatchConfig sets a scheduler that keeps running. Config's Crawl, Costs,
// Workers, Segment, Now, Progress and ProgressEvery apply; OlderThan does
// not.
type WatchConfig struct {
	Config
	// Capacity is the most checks a day (UTC). Required.
	Capacity int
	// Groups is the paper's grouping used: refresh.Groups16 (default) or
	// refresh.Groups6.
	Groups refresh.Groups
	// Hours is the time-of-day rule: refresh.PaperHours (default; the
	// zero value refresh.AnyHour is taken as it) or refresh.AfterChanges.
	Hours refresh.HourRule
	// Allocate, when set, replaces the groups' intervals by Policy's
	// sharing of the capacity between the pages' rates
	// (refresh.Allocate), recomputed at the start of every day; the
	// group is then only a label of the rate.
	Allocate bool
	// Policy is the allocation used when Allocate is set.
	Policy refresh.Policy
	// PriorRate is the rate, in changes per week, of a page with no
	// check yet, and the estimator's prior. Default 1/7 (one a week).
	PriorRate float64
	// Until stops the scheduler when the clock reaches it; zero runs
	// until ctx ends.
	Until time.Time
	// Sleep waits d or until ctx ends. Default a timer; simulations
	// advance their clock instead.
	Sleep func(ctx context.Context, d time.Duration) error
}

// watchPage is what the scheduler keeps of a page.
type watchPage struct {
	Page
	obs   refresh.Obs
	hours refresh.Hours
	due   Due
	// interval is the page's share of the capacity under
	// WatchConfig.Allocate; 0 means its group's interval.
	interval time.Duration
}

// Watch checks the pages of cfg.Crawl as they fall due, for as long as
// ctx lasts (or until cfg.Until): each page's change rate comes from its
// change log (refresh.Estimator, with cfg.PriorRate as prior), its group
// from the rate (the paper's groups), its collection hour from the hours
// its changes were seen (the paper's rule), and its next check from the
// group's interval at that hour. At most cfg.Capacity checks are made a
// day; due pages wait in due order. Every check is recorded with the
// page's next due time in one transaction, so a scheduler killed at any
// moment resumes from the store with no check lost or made twice (a check
// in flight at the kill is not recorded and stays due). A 410 marks the
// page gone; other failures are recorded and the page checked again at
// its interval.
func Watch(ctx context.Context, cfg WatchConfig, st WatchStore, f Fetcher) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if cfg.Capacity <= 0 {
		return Summary{}, errors.New("revisit: the capacity must be at least one check a day")
	}
	if st == nil || f == nil {
		return Summary{}, errors.New("revisit: a store and a fetcher are required")
	}
	cfg.Config = cfg.Config.withDefaults()
	if cfg.Hours == refresh.AnyHour {
		cfg.Hours = refresh.PaperHours
	}
	if cfg.PriorRate <= 0 {
		cfg.PriorRate = 1
	}
	realSleep := cfg.Sleep == nil
	if realSleep {
		cfg.Sleep = sleepCtx
	}
	w := &watcher{runner: runner{cfg: cfg.Config, st: st, f: f}, wcfg: cfg, st: st,
		est: refresh.Estimator{PriorRate: cfg.PriorRate, PriorChanges: 1}, realSleep: realSleep}
	if err := w.load(ctx); err != nil {
		return Summary{}, err
	}
	err := w.loop(ctx)
	if w.cfg.Progress != nil {
		w.printSummary("\n")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sum, err
}

type watcher struct {
	runner
	wcfg  WatchConfig
	st    WatchStore
	est   refresh.Estimator
	pages map[int64]*watchPage
	q     refresh.Queue
	last  time.Time // of the last progress line, by the real clock
	// realSleep is set when the scheduler sleeps on a timer: it then
	// wakes at least every ProgressEvery to print its progress.
	realSleep bool
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// load reads the pages, their checks and the stored schedule, and fills
// the queue.
func (w *watcher) load(ctx context.Context) error {
	w.pages = map[int64]*watchPage{}
	// Rates shared by a policy follow a page's recent checks (as the
	// default of results/refresh); the paper's groups at their own
	// intervals weigh every check alike, as the paper does.
	var forget float64
	if w.wcfg.Allocate && w.wcfg.Policy != refresh.Paper && w.wcfg.Policy != refresh.Paper6 {
		forget = refresh.DefaultForget
	}
	var after int64
	for {
		ps, err := w.st.RevisitPages(ctx, w.cfg.Crawl, after, pageBatch)
		if err != nil {
			return fmt.Errorf("revisit: read pages: %w", err)
		}
		for _, p := range ps {
			after = p.ID
			w.pages[p.ID] = &watchPage{Page: p, obs: refresh.Obs{Forget: forget}}
		}
		if len(ps) < pageBatch {
			break
		}
	}
	// The first fetch of each page is where its checks start: the first
	// check's interval runs from it (the pages' CheckedAt is their latest
	// check).
	prev := make(map[int64]time.Time, len(w.pages))
	for id, p := range w.pages {
		if !p.FetchedAt.IsZero() {
			prev[id] = p.FetchedAt
		}
	}
	// The schedule is read before the change log: a check another
	// process records between the two reads is then in the page's history
	// and only its due time is the one before it (the page is checked
	// once early), where the other order would lose its observation.
	sched, err := w.st.Schedule(ctx, w.cfg.Crawl)
	if err != nil {
		return fmt.Errorf("revisit: %w", err)
	}
	err = w.st.EachCheck(ctx, w.cfg.Crawl, func(c *Check) error {
		p := w.pages[c.PageID]
		if p == nil {
			return nil
		}
		if t, ok := prev[c.PageID]; ok && c.Failure == "" {
			p.obs.Add(refresh.Check{Interval: c.CheckedAt.Sub(t), Changed: c.Changed})
			if c.Changed {
				p.hours.Add(c.CheckedAt)
			}
		}
		if c.Failure == "" {
			prev[c.PageID] = c.CheckedAt
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("revisit: read change log: %w", err)
	}
	w.q.Grow(len(w.pages))
	for id, p := range w.pages {
		if d, ok := sched[id]; ok {
			p.due = d
		} else {
			p.due = w.plan(p, p.CheckedAt)
		}
		if !p.due.Gone {
			w.q.Push(id, p.due.Next)
		}
	}
	return nil
}

// plan places p after a check (or its first fetch) at t.
func (w *watcher) plan(p *watchPage, t time.Time) Due {
	rate := w.est.RateObs(&p.obs)
	g := refresh.GroupOf(rate, w.wcfg.Groups)
	hour := refresh.PaperHour(&p.hours)
	if w.wcfg.Hours == refresh.AfterChanges {
		hour = refresh.BestHour(&p.hours, hour)
	}
	iv := g.Interval()
	if p.interval > 0 {
		iv = p.interval
	}
	next := t.Add(iv)
	if iv >= 24*time.Hour {
		next = refresh.AtHour(next, hour)
		for !next.After(t) {
			next = next.Add(24 * time.Hour)
		}
	} else {
		hour = -1
	}
	return Due{Next: next, Rate: rate, Group: g.String(), Hour: hour}
}

func (w *watcher) loop(ctx context.Context) error {
	var day time.Time
	used := 0
	batch := make([]refresh.Item, 0, w.cfg.Workers)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := w.cfg.Now().UTC()
		if !w.wcfg.Until.IsZero() && !now.Before(w.wcfg.Until) {
			return nil
		}
		if d := now.Truncate(24 * time.Hour); !d.Equal(day) {
			day = d
			n, err := w.st.ChecksSince(ctx, w.cfg.Crawl, day)
			if err != nil {
				return fmt.Errorf("revisit: %w", err)
			}
			used = n
			if w.wcfg.Allocate {
				w.reallocate()
			}
		}
		w.progress(now, used)
		wake := day.Add(24 * time.Hour)
		if used < w.wcfg.Capacity {
			batch = w.q.PopDue(batch[:0], now, min(w.wcfg.Capacity-used, w.cfg.Workers))
			if len(batch) > 0 {
				if err := w.checkBatch(ctx, batch); err != nil {
					return err
				}
				used += len(batch)
				continue
			}
			if next, ok := w.q.Next(); ok && next.Due.Before(wake) {
				wake = next.Due
			}
		}
		if !w.wcfg.Until.IsZero() && w.wcfg.Until.Before(wake) {
			wake = w.wcfg.Until
		}
		wait := max(wake.Sub(now), time.Millisecond)
		if w.realSleep && w.cfg.Progress != nil {
			wait = min(wait, w.cfg.ProgressEvery)
		}
		if err := w.wcfg.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// maxInterval is the longest interval Allocate sets.
const maxInterval = 52 * refresh.Week

// reallocate shares the capacity between the pages by their current
// rates and reschedules each from its latest check.
func (w *watcher) reallocate() {
	ids := make([]int64, 0, len(w.pages))
	rates := make([]float64, 0, len(w.pages))
	for id, p := range w.pages {
		if p.due.Gone {
			continue
		}
		ids = append(ids, id)
		rates = append(rates, w.est.RateObs(&p.obs))
	}
	freqs := refresh.Allocate(w.wcfg.Policy, rates, float64(w.wcfg.Capacity))
	var q refresh.Queue
	q.Grow(len(ids))
	for i, id := range ids {
		p := w.pages[id]
		// A page the policy gives nothing is still checked once a year.
		p.interval = maxInterval
		if freqs[i] > 0 {
			p.interval = time.Duration(min(float64(24*time.Hour)/freqs[i], float64(maxInterval)))
		}
		p.due = w.plan(p, p.CheckedAt)
		q.Push(id, p.due.Next)
	}
	w.q = q
}

// checkBatch checks the pages of batch at once and records each with its
// next due time.
func (w *watcher) checkBatch(ctx context.Context, batch []refresh.Item) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, it := range batch {
		p := w.pages[it.ID]
		g.Go(func() error {
			c, err := w.check(gctx, p.Page)
			if err != nil {
				return err
			}
			w.mu.Lock()
			if c.Failure == "" {
				p.obs.Add(refresh.Check{Interval: c.CheckedAt.Sub(p.CheckedAt), Changed: c.Changed})
				if c.Changed {
					p.hours.Add(c.CheckedAt)
				}
			}
			d := w.plan(p, c.CheckedAt)
			if c.Status == http.StatusGone {
				d.Gone = true
			}
			w.mu.Unlock()
			if err := w.st.RecordScheduledCheck(gctx, c, d); err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				return fmt.Errorf("revisit: record check of %s: %w", p.URL, err)
			}
			w.mu.Lock()
			if c.Failure == "" {
				p.CheckedAt = c.CheckedAt
			}
			if c.New != nil {
				p.Version, p.ETag, p.Modified, p.ContentHash = c.New.Number, c.New.ETag, c.New.Modified, c.New.ContentHash
			}
			p.due = d
			w.mu.Unlock()
			w.tally(c)
			return nil
		})
	}
	err := g.Wait()
	for _, it := range batch {
		p := w.pages[it.ID]
		if !p.due.Gone {
			w.q.Push(it.ID, p.due.Next)
		}
	}
	return err
}

// progress prints a line every ProgressEvery (by the real clock).
func (w *watcher) progress(now time.Time, used int) {
	if w.cfg.Progress == nil || time.Since(w.last) < w.cfg.ProgressEvery {
		return
	}
	w.last = time.Now()
	fmt.Fprintf(w.cfg.Progress, "%s  today %d/%d  ", now.Format("2006-01-02 15:04"), used, w.wcfg.Capacity)
	w.printSummary("\n")
}

// printSummary writes the counts of the run and, per group, the pages due
// now and their number.
func (w *watcher) printSummary(end string) {
	w.mu.Lock()
	s := w.sum
	now := w.cfg.Now()
	type gc struct{ pages, due int }
	by := map[string]*gc{}
	gone := 0
	for _, p := range w.pages {
		if p.due.Gone {
			gone++
			continue
		}
		c := by[p.due.Group]
		if c == nil {
			c = &gc{}
			by[p.due.Group] = c
		}
		c.pages++
		if !p.due.Next.After(now) {
			c.due++
		}
	}
	w.mu.Unlock()
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, _ := refresh.ParseGroup(names[i])
		b, _ := refresh.ParseGroup(names[j])
		return a > b
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d/%d", n, by[n].due, by[n].pages)
	}
	fmt.Fprintf(w.cfg.Progress, "checked %d (changed %d, unchanged %d, 304 %d, failed %d); due/pages by group: %s; gone %d%s",
		s.Checked, s.Changed, s.Unchanged, s.NotModified, s.Failed, strings.Join(parts, ", "), gone, end)
}

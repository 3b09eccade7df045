package crawler

import (
	"context"
	"time"
)

// Progress is the state of a running crawl, given to Config.Progress
// every Config.ProgressEvery and once more when the run ends.
type Progress struct {
	// Pages and Failed count the crawl's fetches, all runs; of a crawl
	// that processes share (a CrawlCounter store), all processes, as the
	// store counted them when the frontier was last counted, with this
	// process's since.
	Pages  int // pages fetched without failure
	Failed int // fetches that failed
	// Relevant counts, per topic (Topics order), the pages the page
	// classifier found on-topic, all runs (as Pages) when the store
	// reads its pages back (PageReader) or counts them (CrawlCounter),
	// else this run's.
	Topics   []string
	Relevant []int
	// Frontier is the number of URLs waiting on each stack, in serving
	// order (each topic's stack, then its reserve and parts); nil when the
	// store could not count them.
	Frontier []Waiting
	// Retrying is the number of pages whose fetch failed for a transient
	// reason and that wait to be fetched again (Config.RetryLater), not
	// counted in Failed; the run keeps them in memory, so counting them
	// costs no read of the store.
	Retrying int
	// FetchesPerSec is this run's fetches, failed included, per second.
	FetchesPerSec float64
	Final         bool // the run ended; no more updates follow
}

// Waiting is the number of URLs waiting on one stack.
type Waiting struct {
	Stack Stack
	URLs  int
}

// frontierSizes caches the store's count of the frontier for the progress
// line: counting scans the whole frontier, so it is redone only after 20
// times as long as the last count took (a progress line must not slow a
// crawl whose frontier holds millions of links).
type frontierSizes struct {
	sizes map[string]int
	next  time.Time
	// counts are a shared crawl's counts (CrawlCounter) when the frontier
	// was last counted, and mine this process's own then (ownCounts).
	counts, mine *CrawlCounts
}

// get returns the frontier's sizes, counted afresh when due. own gives
// this process's counts, to be kept beside the crawl's counts when the
// store gives those too.
func (f *frontierSizes) get(ctx context.Context, st Store, crawl int64, own func() CrawlCounts) map[string]int {
	if f.sizes != nil && time.Now().Before(f.next) {
		return f.sizes
	}
	t0 := time.Now()
	sizes, err := st.FrontierSizes(ctx, crawl)
	if err != nil {
		return f.sizes
	}
	if cc, ok := StoreAs[CrawlCounter](st); ok {
		if counts, err := cc.CrawlCounts(ctx, crawl); err == nil {
			mine := own()
			f.counts, f.mine = &counts, &mine
		}
	}
	f.sizes, f.next = sizes, time.Now().Add(20*time.Since(t0))
	return sizes
}

// ownCounts are this process's counts, all runs, as its progress tells
// them without a CrawlCounter.
func (r *run) ownCounts() CrawlCounts {
	c := CrawlCounts{Fetched: r.budget.total, Succeeded: r.budget.succeeded, Relevant: make(map[string]int, len(r.c.topics))}
	for _, t := range r.c.topics {
		c.Relevant[t] = r.relevantBefore[t] + r.sum.Relevant[t]
	}
	return c
}

// progress gives Config.Progress the crawl's state.
func (r *run) progress(ctx context.Context, final bool) {
	c := r.c
	if final {
		r.sizes.next = time.Time{} // the last update counts afresh
	}
	sizes := r.sizes.sizes // the store is the committer's while it has a batch
	if r.batch == nil {
		sizes = r.sizes.get(ctx, c.store, r.front.crawl, r.ownCounts)
	}
	n := r.ownCounts()
	if all, then := r.sizes.counts, r.sizes.mine; all != nil {
		// The crawl's counts when last read, and this process's since.
		n.Fetched += all.Fetched - then.Fetched
		n.Succeeded += all.Succeeded - then.Succeeded
		for _, t := range c.topics {
			n.Relevant[t] += all.Relevant[t] - then.Relevant[t]
		}
	}
	p := Progress{Pages: n.Succeeded, Failed: n.Fetched - n.Succeeded, Retrying: r.out.waitingCount(),
		Topics: c.topics, Final: final}
	for _, t := range c.topics {
		p.Relevant = append(p.Relevant, n.Relevant[t])
	}
	if sizes != nil {
		for _, s := range r.front.stacks() {
			p.Frontier = append(p.Frontier, Waiting{Stack: s, URLs: sizes[s.Name()]})
		}
	}
	if el := time.Since(r.start).Seconds(); el > 0 {
		p.FetchesPerSec = float64(r.sum.Fetched) / el
	}
	c.cfg.Progress(p)
	r.lastProgress = time.Now()
}

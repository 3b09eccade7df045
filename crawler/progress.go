package crawler

import (
	"context"
	"time"
)

// Progress is the state of a running crawl, given to Config.Progress
// every Config.ProgressEvery and once more when the run ends.
type Progress struct {
	Pages  int // pages fetched without failure, all runs
	Failed int // fetches that failed, all runs
	// Relevant counts, per topic (Topics order), the pages the page
	// classifier found on-topic, all runs (as Pages) when the store
	// reads its pages back (PageReader), else this run's.
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
}

func (f *frontierSizes) get(ctx context.Context, st Store, crawl int64) map[string]int {
	if f.sizes != nil && time.Now().Before(f.next) {
		return f.sizes
	}
	t0 := time.Now()
	sizes, err := st.FrontierSizes(ctx, crawl)
	if err != nil {
		return f.sizes
	}
	f.sizes, f.next = sizes, time.Now().Add(20*time.Since(t0))
	return sizes
}

// progress gives Config.Progress the crawl's state.
func (r *run) progress(ctx context.Context, final bool) {
	c := r.c
	p := Progress{Pages: r.budget.succeeded, Failed: r.budget.total - r.budget.succeeded, Retrying: r.out.waitingCount(),
		Topics: c.topics, Final: final}
	for _, t := range c.topics {
		p.Relevant = append(p.Relevant, r.relevantBefore[t]+r.sum.Relevant[t])
	}
	if final {
		r.sizes.next = time.Time{} // the last update counts afresh
	}
	sizes := r.sizes.sizes // the store is the committer's while it has a batch
	if r.batch == nil {
		sizes = r.sizes.get(ctx, c.store, r.front.crawl)
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

package sqlite

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/scent-crawler/scent/crawler"
)

// pops keeps, per open crawl, what Pop took from the frontier and has not
// written yet. A pop reads the frontier and decides in memory; its
// writes (the frontier rows it took, the URLs it leased, the per-host
// page counts and waiting counts they change) are made by the crawl's
// next write transaction (Commit, Rescore, FinishCrawl, FrontierSizes,
// Close), before anything else in it. So a pop costs a read, not a write
// transaction of its own, and every write sees the database exactly as
// if each pop had been written at once. A process killed between a pop
// and the next write leaves the popped URLs waiting on the frontier,
// which resume serves again, as it does with URLs leased but not
// committed.
//
// leased names every URL leased and not committed yet, whether written
// or not: pops skip them (the database still shows them waiting until
// written) and Commit stores their pages by id, knowing they are leased.
//
// Pop and the write transactions of one crawl must not run at the same
// time (they come from the crawl's scheduler goroutine): a crawl that
// pops on one goroutine and commits on another must serialize them, or
// this bookkeeping must learn to write only what was popped before the
// write began. KnownURL may run on any goroutine.
type pops struct {
	mu     sync.Mutex // KnownURL reads leased from other goroutines
	crawls map[int64]*crawlPops
}

type crawlPops struct {
	taken     []int64          // frontier rows (seq) taken, not deleted yet
	isTaken   map[int64]bool   // the same rows
	leases    []pendingLease   // URLs leased, not marked leased yet
	leased    map[string]int64 // URL → urls.id, leased and not committed
	hostPages map[string]int   // pages counted against the per-host cap, not written
	waiting   map[string]int   // leased URLs per host, not yet taken off the waiting counts
	// surveyed names the stacks whose survey part (entries within
	// crawler.SurveyDepth) a SurveyFirst pop found empty: their pops skip
	// its query until a push of such an entry reaches them (Commit).
	surveyed map[string]bool
}

type pendingLease struct {
	id    int64
	topic string
	depth int
	score float64
}

// of returns the pops of crawl, made empty when absent.
func (p *pops) of(crawl int64) *crawlPops {
	if p.crawls == nil {
		p.crawls = make(map[int64]*crawlPops)
	}
	c := p.crawls[crawl]
	if c == nil {
		c = &crawlPops{isTaken: make(map[int64]bool), leased: make(map[string]int64),
			hostPages: make(map[string]int), waiting: make(map[string]int), surveyed: make(map[string]bool)}
		p.crawls[crawl] = c
	}
	return c
}

// reset forgets what was popped for crawl (when it is opened).
func (p *pops) reset(crawl int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.crawls, crawl)
}

// isLeased reports whether url was leased by a pop and not committed.
func (p *pops) isLeased(crawl int64, url string) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.crawls[crawl]
	if c == nil {
		return 0, false
	}
	id, ok := c.leased[url]
	return id, ok
}

// take notes frontier row seq as taken.
func (c *crawlPops) take(seq int64) {
	c.taken = append(c.taken, seq)
	c.isTaken[seq] = true
}

// pushed notes the entries a commit pushes: a stack that one within
// crawler.SurveyDepth reaches has a survey part again.
func (p *pops) pushed(crawl int64, entries []crawler.Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.crawls[crawl]
	if c == nil || len(c.surveyed) == 0 {
		return
	}
	for _, e := range entries {
		if e.Depth <= crawler.SurveyDepth {
			delete(c.surveyed, e.Topic)
		}
	}
}

// lease notes URL url (urls.id id, of host) as leased from topic's stack.
func (p *pops) lease(c *crawlPops, url, host string, l pendingLease) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c.leases = append(c.leases, l)
	c.leased[url] = l.id
	c.waiting[host]++
}

// committed forgets the leases of the URLs of pages just committed.
func (p *pops) committed(crawl int64, urls []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.crawls[crawl]; c != nil {
		for _, u := range urls {
			delete(c.leased, u)
		}
	}
}

// write makes the pending pops of crawl in transaction tx. The caller
// calls written once tx has committed.
func (p *pops) write(ctx context.Context, tx cachedTx, crawl int64) error {
	p.mu.Lock()
	c := p.crawls[crawl]
	p.mu.Unlock()
	if c == nil || len(c.taken) == 0 && len(c.leases) == 0 && len(c.hostPages) == 0 {
		return nil
	}
	for _, seq := range c.taken {
		if _, err := tx.exec(ctx, `DELETE FROM frontier WHERE seq = ?`, seq); err != nil {
			return fmt.Errorf("write pops: %w", err)
		}
	}
	for _, l := range c.leases {
		if _, err := tx.exec(ctx, `UPDATE urls SET state = 1, topic = ?, depth = ?, score = ? WHERE id = ?`,
			l.topic, l.depth, l.score, l.id); err != nil {
			return fmt.Errorf("write pops: %w", err)
		}
	}
	for host, n := range c.hostPages {
		if _, err := tx.exec(ctx, `INSERT INTO hosts(crawl_id, host, pages) VALUES (?, ?, ?)
			ON CONFLICT(crawl_id, host) DO UPDATE SET pages = pages + excluded.pages`, crawl, host, n); err != nil {
			return fmt.Errorf("write pops: %w", err)
		}
	}
	w := newWaitingCount(tx, crawl)
	for host, n := range c.waiting {
		w.add(host, -n)
	}
	if err := w.save(ctx); err != nil {
		return fmt.Errorf("write pops: %w", err)
	}
	return nil
}

// written forgets the pending pops of crawl once a transaction that
// wrote them has committed.
func (p *pops) written(crawl int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.crawls[crawl]
	if c == nil {
		return
	}
	c.taken = c.taken[:0]
	clear(c.isTaken)
	c.leases = c.leases[:0]
	clear(c.hostPages)
	clear(c.waiting)
}

// pending lists the crawls with pops not written.
func (p *pops) pending() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int64
	for id, c := range p.crawls {
		if len(c.taken) > 0 || len(c.leases) > 0 || len(c.hostPages) > 0 {
			out = append(out, id)
		}
	}
	return out
}

// writePops writes the pending pops of crawl in a transaction of its own
// (for the readers of the frontier, and at Close).
func (s *Store) writePops(ctx context.Context, crawl int64) error {
	if !slices.Contains(s.pops.pending(), crawl) {
		return nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.pops.write(ctx, tx, crawl); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.pops.written(crawl)
	return nil
}

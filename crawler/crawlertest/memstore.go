package crawlertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// MemStore is a crawler.Store that keeps everything in memory: the
// reference implementation of the Store contract, against which the
// suite runs without a database (and without cgo). Pops scan a stack, so
// it suits tests and small crawls, not large ones. It keeps no
// near-duplicate index. The zero value is not usable; call NewMemStore.
type MemStore struct {
	mu     sync.Mutex
	crawls map[string]*memCrawl
	byID   map[int64]*memCrawl
	seq    int64
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{crawls: make(map[string]*memCrawl), byID: make(map[int64]*memCrawl)}
}

type memCrawl struct {
	id       int64
	spec     crawler.CrawlSpec
	finish   string
	urls     map[urlnorm.URL]*memURL
	stacks   map[string]map[urlnorm.URL]*memEntry
	waiting  int            // URLs in state waiting
	byHost   map[string]int // of waiting, per host
	dropped  map[string]int // URLs not queued per host (bounds)
	pages    map[string]int // pages popped per host (maxPerHost)
	fetches  []*crawler.Page
	finals   map[urlnorm.URL]int // final URL → index of its page in fetches
	learner  []byte
	resumed  bool
	requeued int
}

// The states of a URL, as the SQLite store keeps them.
const (
	waiting = iota
	leased
	fetched
)

type memURL struct {
	state int
	lease crawler.Entry // the entry it was popped as, while leased
}

type memEntry struct {
	seq   int64
	depth int
	score float64
}

// OpenCrawl implements crawler.Store.
func (s *MemStore) OpenCrawl(_ context.Context, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	if spec.Name == "" {
		return crawler.CrawlState{}, errors.New("open crawl: empty name")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.crawls[spec.Name]
	if c == nil {
		return s.create(spec), nil
	}
	if c.spec.Strategy != spec.Strategy || !slices.Equal(c.spec.Stacks, spec.Stacks) || !slices.Equal(c.spec.Topics, spec.Topics) {
		return crawler.CrawlState{}, fmt.Errorf("crawl %q exists with strategy %s and topics %v", spec.Name, c.spec.Strategy, c.spec.Topics)
	}
	c.finish, c.resumed, c.requeued = "", true, 0
	for u, mu := range c.urls {
		if mu.state == leased {
			c.setState(u, mu, waiting)
			s.put(c, mu.lease.Topic, u, mu.lease.Depth, mu.lease.Score, true)
			c.requeued++
		}
	}
	st := crawler.CrawlState{ID: c.id, Resumed: true, Requeue: c.requeued, ByTopic: make(map[string]int), Learner: c.learner}
	for _, p := range c.fetches {
		st.Fetched++
		if p.Failure == "" {
			st.Succeeded++
		}
		st.ByTopic[p.Topic]++
	}
	return st, nil
}

func (s *MemStore) create(spec crawler.CrawlSpec) crawler.CrawlState {
	c := &memCrawl{id: int64(len(s.crawls) + 1), spec: spec, urls: make(map[urlnorm.URL]*memURL),
		stacks: make(map[string]map[urlnorm.URL]*memEntry), byHost: make(map[string]int),
		dropped: make(map[string]int), pages: make(map[string]int), finals: make(map[urlnorm.URL]int)}
	s.crawls[spec.Name], s.byID[c.id] = c, c
	seedStacks := spec.SeedStacks
	if seedStacks == nil {
		seedStacks = spec.Stacks
	}
	var seeds []crawler.Entry
	for _, stack := range seedStacks {
		for _, u := range spec.Seeds {
			seeds = append(seeds, crawler.Entry{Topic: stack, URL: u, Score: 1})
		}
	}
	slices.Reverse(seeds) // the first seed on top
	s.push(c, seeds)
	return crawler.CrawlState{ID: c.id, ByTopic: make(map[string]int)}
}

func (s *MemStore) crawl(id int64) (*memCrawl, error) {
	c := s.byID[id]
	if c == nil {
		return nil, fmt.Errorf("crawl %d: not found", id)
	}
	return c, nil
}

// setState moves u to state, keeping the waiting counts.
func (c *memCrawl) setState(u urlnorm.URL, mu *memURL, state int) {
	if mu.state == waiting {
		c.waiting--
		c.byHost[u.Host()]--
	}
	if state == waiting {
		c.waiting++
		c.byHost[u.Host()]++
	}
	mu.state = state
}

// push adds entries to their stacks as the Store contract says: URLs
// fetched or leased are left out; a new URL beyond the bounds is
// dropped; a URL pushed again on a stack moves to its top with the
// higher score and the shorter depth, but keeps its place on the bfs
// queue (stack "").
func (s *MemStore) push(c *memCrawl, entries []crawler.Entry) {
	for _, e := range entries {
		mu := c.urls[e.URL]
		switch {
		case mu == nil:
			host := e.URL.Host()
			if (c.spec.MaxWaitingPerHost > 0 && c.byHost[host] >= c.spec.MaxWaitingPerHost) ||
				(c.spec.MaxWaiting > 0 && c.waiting >= c.spec.MaxWaiting) {
				c.dropped[host]++
				continue
			}
			mu = &memURL{state: fetched}
			c.urls[e.URL] = mu
			c.setState(e.URL, mu, waiting)
		case mu.state != waiting:
			continue
		}
		s.put(c, e.Topic, e.URL, e.Depth, e.Score, e.Topic != "")
	}
}

// put places u on stack; an entry already there moves to the top (when
// move) with the better depth and score, or stays where it is.
func (s *MemStore) put(c *memCrawl, stack string, u urlnorm.URL, depth int, score float64, move bool) {
	st := c.stacks[stack]
	if st == nil {
		st = make(map[urlnorm.URL]*memEntry)
		c.stacks[stack] = st
	}
	old := st[u]
	if old != nil && !move {
		return
	}
	s.seq++
	e := &memEntry{seq: s.seq, depth: depth, score: score}
	if old != nil {
		e.depth, e.score = min(depth, old.depth), max(score, old.score)
	}
	st[u] = e
}

// before reports whether entry a is served before b in order.
func before(order crawler.Order, a, b *memEntry) bool {
	switch order {
	case crawler.FIFO:
		return a.seq < b.seq
	case crawler.BestFirst:
		if a.score != b.score {
			return a.score > b.score
		}
	case crawler.Shallowest:
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.score != b.score {
			return a.score > b.score
		}
	case crawler.SurveyFirst:
		if sa, sb := a.depth <= crawler.SurveyDepth, b.depth <= crawler.SurveyDepth; sa != sb {
			return sa
		}
		if a.score != b.score {
			return a.score > b.score
		}
	}
	return a.seq > b.seq
}

// Pop implements crawler.Store.
func (s *MemStore) Pop(_ context.Context, crawl int64, topic string, order crawler.Order, n, maxPerHost int) ([]crawler.Entry, error) {
	if order < crawler.LIFO || order > crawler.SurveyFirst {
		return nil, fmt.Errorf("pop: unknown order %d", order)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return nil, err
	}
	st := c.stacks[topic]
	var out []crawler.Entry
	for len(out) < n && len(st) > 0 {
		var bestURL urlnorm.URL
		var best *memEntry
		for u, e := range st {
			if best == nil || before(order, e, best) {
				bestURL, best = u, e
			}
		}
		delete(st, bestURL)
		mu := c.urls[bestURL]
		if mu.state != waiting {
			continue // fetched or leased through another stack
		}
		host := bestURL.Host()
		if maxPerHost > 0 {
			if c.pages[host] >= maxPerHost {
				continue
			}
			c.pages[host]++
		}
		e := crawler.Entry{Topic: topic, URL: bestURL, Depth: best.depth, Score: best.score}
		c.setState(bestURL, mu, leased)
		mu.lease = e
		out = append(out, e)
	}
	return out, nil
}

// Commit implements crawler.Store.
func (s *MemStore) Commit(_ context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := p.CheckScores(c.spec.Topics); err != nil {
			return fmt.Errorf("store %w", err)
		}
	}
	for _, p := range pages {
		c.fetched(p.URL)
		final := p.FinalURL
		if final.IsZero() {
			final = p.URL
		}
		c.fetched(final)
		if i, ok := c.finals[final]; ok && p.Failure == "" {
			p.RedirectTo = final
			p.Failure = fmt.Sprintf("redirect: to %s, stored as page %d", final, i+1)
			p.Title, p.Text, p.Links, p.Scores, p.Relevant = "", "", nil, nil, nil
		} else if p.Failure == "" {
			c.finals[final] = len(c.fetches)
		}
		cp := *p
		cp.Exchanges, cp.Sitemaps = nil, nil
		c.fetches = append(c.fetches, &cp)
	}
	s.push(c, push)
	return nil
}

// fetched marks u fetched, known or not.
func (c *memCrawl) fetched(u urlnorm.URL) {
	mu := c.urls[u]
	if mu == nil {
		c.urls[u] = &memURL{state: fetched}
		return
	}
	c.setState(u, mu, fetched)
}

// FrontierSizes implements crawler.Store: the entries on each stack
// whose URL still waits (not those taken through another stack since).
func (s *MemStore) FrontierSizes(_ context.Context, crawl int64) (map[string]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int)
	for name, st := range c.stacks {
		for u := range st {
			if c.urls[u].state == waiting {
				out[name]++
			}
		}
	}
	return out, nil
}

// FinishCrawl implements crawler.Store.
func (s *MemStore) FinishCrawl(_ context.Context, crawl int64, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return err
	}
	c.finish = reason
	return nil
}

// Rescore implements crawler.Store.
func (s *MemStore) Rescore(_ context.Context, crawl int64, entries []crawler.Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if me := c.stacks[e.Topic][e.URL]; me != nil {
			me.score = e.Score
		}
	}
	return nil
}

// SaveLearner implements crawler.Store.
func (s *MemStore) SaveLearner(_ context.Context, crawl int64, state []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return err
	}
	c.learner = slices.Clone(state)
	return nil
}

// KnownURL implements crawler.URLLookup.
func (s *MemStore) KnownURL(_ context.Context, crawl int64, u urlnorm.URL) (known, taken bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.crawl(crawl)
	if err != nil {
		return false, false, err
	}
	mu := c.urls[u]
	if mu == nil {
		return false, false, nil
	}
	return true, mu.state != waiting, nil
}

// EachPage calls fn with every fetch committed to the crawl, in commit
// order, with its Order (without text, links, raw exchanges or sitemaps).
func (s *MemStore) EachPage(_ context.Context, crawl int64, fn func(*crawler.Page) error) error {
	s.mu.Lock()
	c, err := s.crawl(crawl)
	var ps []*crawler.Page
	if err == nil {
		ps = slices.Clone(c.fetches)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for i, p := range ps {
		cp := *p
		cp.Order = i + 1
		cp.Text, cp.Links = "", nil
		if err := fn(&cp); err != nil {
			return err
		}
	}
	return nil
}

// EachLink calls fn with every link of the crawl's fetches, in commit
// order, as committed, with its page's final URL and the crawl's topics,
// as the SQLite and PostgreSQL stores' EachLink do.
func (s *MemStore) EachLink(_ context.Context, crawl int64, fn func(*crawler.PageLink) error) error {
	s.mu.Lock()
	c, err := s.crawl(crawl)
	var ps []*crawler.Page
	var topics []string
	if err == nil {
		ps, topics = slices.Clone(c.fetches), c.spec.Topics
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range ps {
		parent := p.FinalURL
		if parent.IsZero() {
			parent = p.URL
		}
		for _, l := range p.Links {
			if err := fn(&crawler.PageLink{Link: l, Parent: parent, Topics: topics}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Finish returns how the crawl named name last ended ("" while running
// or unknown).
func (s *MemStore) Finish(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.crawls[name]; c != nil {
		return c.finish
	}
	return ""
}

// Dropped returns the URLs not queued per host because of the bounds.
func (s *MemStore) Dropped(crawl int64) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.byID[crawl]; c != nil {
		return maps.Clone(c.dropped)
	}
	return nil
}

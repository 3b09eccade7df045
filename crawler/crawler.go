package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// Scorer gives the probability that a token sequence (a page or a link's
// context) belongs to each topic. It must be safe for concurrent use.
type Scorer interface {
	// Topics lists the topics in the order of Score's values.
	Topics() []string
	// Score writes P(topic | tokens) for every topic into dst, which it
	// returns (grown if needed); tokens are a link's context segment.
	Score(tokens []string, dst []float64) []float64
	// ScorePage is Score for the tokens of a whole page.
	ScorePage(tokens []string, dst []float64) []float64
	// Threshold is the score at which a link or page is on-topic for the
	// topic at index i.
	Threshold(i int) float64
}

// LinkScorer is an optional interface of a Scorer that also looks at a
// link's target URL, such as a scorer built from labels to measure what a
// perfect link classifier would reach. When the Scorer implements it, the
// crawler scores links with ScoreLink instead of Score.
type LinkScorer interface {
	ScoreLink(target urlnorm.URL, tokens []string, dst []float64) []float64
}

// Fetcher downloads one page; *fetch.Fetcher implements it.
type Fetcher interface {
	Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*fetch.Result, error)
}

// Crawler runs one crawl. It is not reusable.
type Crawler struct {
	cfg     Config
	skip    map[string]bool
	store   Store
	fetcher Fetcher
	scorer  Scorer
	topics  []string
	stacks  []string
	order   Order
	signer  *minhash.Signer
	known   map[urlnorm.URL]bool
	crawlID int64 // of the running crawl, set by Run
	// sitemapSites are the sites whose sitemaps were read (sitemaps.go).
	sitemapSites sitemapSites
}

// New checks the configuration and returns a crawler. scorer may be nil
// only for the bfs strategy.
func New(cfg Config, store Store, fetcher Fetcher, scorer Scorer) (*Crawler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	cfg = cfg.withDefaults()
	if store == nil || fetcher == nil {
		return nil, errors.New("crawler: a store and a fetcher are required")
	}
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	c := &Crawler{cfg: cfg, store: store, fetcher: fetcher, scorer: scorer, skip: make(map[string]bool), signer: signer}
	if len(cfg.Known) > 0 {
		c.known = make(map[urlnorm.URL]bool, len(cfg.Known))
		for _, u := range cfg.Known {
			c.known[u] = true
		}
	}
	for _, e := range cfg.SkipExtensions {
		c.skip[strings.ToLower(strings.TrimPrefix(e, "."))] = true
	}
	if scorer != nil {
		c.topics = scorer.Topics()
	}
	switch cfg.Strategy {
	case StrategyBFS:
		c.stacks = []string{""}
		c.order = FIFO
	default:
		if scorer == nil || len(c.topics) == 0 {
			return nil, fmt.Errorf("crawler: strategy %s needs a model with at least one topic", cfg.Strategy)
		}
		c.stacks = c.topics
		c.order = LIFO
		if cfg.Frontier == FrontierBestFirst || cfg.Learner != nil {
			c.order = BestFirst
		}
	}
	return c, nil
}

// Summary describes a finished or interrupted run.
type Summary struct {
	Crawl         int64
	Resumed       bool
	Fetched       int            // fetches committed in this run, failed or not
	Total         int            // fetches committed in the crawl, all runs
	Succeeded     int            // of Total, pages fetched without failure
	Failed        int            // of Fetched, pages recorded with a failure
	Relevant      map[string]int // of Fetched, pages the classifier found on-topic
	Elapsed       time.Duration
	Finish        string  // "frontier empty", "budget reached" or "interrupted"
	PagesPerSec   float64 // pages fetched successfully per second in this run
	FetchesPerSec float64 // fetches, failed ones included, per second in this run
}

type result struct {
	entry    Entry
	page     *Page
	push     []Entry
	canceled bool
}

// inOrder gives results back in the order their entries were sent to the
// workers. A breadth-first queue that commits in that order receives its
// pushes as a single worker would make them, so which pages a bfs crawl
// fetches does not depend on which fetch finishes first. Results waiting
// for an earlier one are at most the fetches in flight.
type inOrder struct {
	sent     map[urlnorm.URL]int // entry URL → send number
	held     map[int]result
	nextSend int
	nextOut  int
}

func newInOrder() *inOrder {
	return &inOrder{sent: make(map[urlnorm.URL]int), held: make(map[int]result)}
}

func (o *inOrder) send(e Entry) {
	o.sent[e.URL] = o.nextSend
	o.nextSend++
}

// receive holds r and appends to out the results now in order.
func (o *inOrder) receive(r result, out []result) []result {
	n := o.sent[r.entry.URL]
	delete(o.sent, r.entry.URL)
	o.held[n] = r
	for {
		r, ok := o.held[o.nextOut]
		if !ok {
			return out
		}
		delete(o.held, o.nextOut)
		o.nextOut++
		out = append(out, r)
	}
}

// rest appends to out the results still held, in send order.
func (o *inOrder) rest(out []result) []result {
	keys := make([]int, 0, len(o.held))
	for k := range o.held {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, o.held[k])
	}
	clear(o.held)
	return out
}

// Run crawls from seeds (used only when the crawl is new) until the
// frontier is empty, a budget is reached or ctx ends. When ctx ends, the
// pages already fetched are committed and the crawl can be resumed by
// running it again; Run then returns ctx's error with the summary.
func (c *Crawler) Run(ctx context.Context, seeds []urlnorm.URL, config string) (Summary, error) {
	start := time.Now()
	params := c.signer.Params()
	stacks := c.stacks
	if fb := c.fallbacks(""); len(fb) > 0 {
		stacks = nil
		for _, t := range c.stacks {
			stacks = append(stacks, t)
			stacks = append(stacks, c.fallbacks(t)...)
		}
	}
	spec := CrawlSpec{Name: c.cfg.Name, Strategy: c.cfg.Strategy, Stacks: stacks, SeedStacks: c.stacks, Topics: c.topics, Seeds: seeds, Config: config, MinHash: &params,
		MaxWaitingPerHost: max(c.cfg.MaxFrontierPerHost, 0), MaxWaiting: max(c.cfg.MaxFrontier, 0)}
	st, err := c.store.OpenCrawl(ctx, spec)
	if err != nil {
		return Summary{}, err
	}
	c.crawlID = st.ID
	sum := Summary{Crawl: st.ID, Resumed: st.Resumed, Total: st.Fetched, Succeeded: st.Succeeded, Relevant: make(map[string]int)}
	var learn *learning
	if c.cfg.Learner != nil {
		learn = &learning{l: c.cfg.Learner, store: c.store, crawl: st.ID}
		if st.Learner != nil {
			if err := c.cfg.Learner.RestoreState(st.Learner); err != nil {
				return sum, fmt.Errorf("resume crawl %s: %w", c.cfg.Name, err)
			}
		}
	}
	out := newOutage(unwrapOutage(c.fetcher), c.cfg) // transient failures: see outage.go
	c.fetcher = out

	jobs := make(chan Entry)
	results := make(chan result, c.cfg.Workers)
	workCtx, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	var wg sync.WaitGroup
	for i := 0; i < c.cfg.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(c)
			for e := range jobs {
				results <- w.process(workCtx, e)
			}
		}()
	}

	var (
		inflight      int
		inflightTopic = make(map[string]int)
		byTopic       = st.ByTopic
		empty         = make(map[string]bool) // stack found empty since the last push to it
		pending       []Entry
		next          int // round-robin position
		lastProgress  = time.Now()
		sizes         frontierSizes
		runErr        error
		finish        string
		awaited       int // SharedFrontier waits since the last pop that found entries
	)
	if byTopic == nil {
		byTopic = make(map[string]int)
	}
	// commit stores finished results (canceled fetches stay leased) and
	// counts them.
	var promo *promoter
	if c.cfg.Promote && c.cfg.Tunnel && c.order != FIFO {
		promo = newPromoter(c.topics)
	}
	var secs *sections
	if c.cfg.Sections && c.scorer != nil && c.order != FIFO {
		secs = newSections(c.topics)
	}
	commit := func(rs []result) error {
		pages := make([]*Page, 0, len(rs))
		var push []Entry
		for _, r := range rs {
			if r.canceled {
				continue
			}
			pages = append(pages, r.page)
			rp := r.push
			if secs != nil {
				secs.observe(r.page)
				rp = secs.divert(rp, c.cfg.Tunnel || c.cfg.Learner != nil)
			}
			var promoted []Entry
			if promo != nil {
				promoted = promo.observe(r.entry, r.page)
				if secs != nil {
					promoted = secs.divert(promoted, c.cfg.Tunnel)
				}
			}
			push = append(push, rp...)
			push = append(push, promoted...)
			if promo != nil {
				promo.remember(r.page.FinalURL, rp)
			}
		}
		if len(pages) == 0 {
			return nil
		}
		push = c.siteNormalize(pages, push) // sitenorm.go
		if err := c.store.Commit(context.WithoutCancel(ctx), st.ID, pages, push); err != nil {
			return err
		}
		if learn != nil {
			if err := learn.observe(context.WithoutCancel(ctx), rs); err != nil {
				return err
			}
		}
		for _, p := range pages {
			sum.Fetched++
			sum.Total++
			byTopic[p.Topic]++
			if p.Failure != "" {
				sum.Failed++
			} else {
				sum.Succeeded++
			}
			for i, rel := range p.Relevant {
				if rel {
					sum.Relevant[c.topics[i]]++
				}
			}
		}
		for _, e := range push {
			empty[e.Topic] = false
		}
		return nil
	}
	var (
		unflushed  []result         // results not yet committed
		flushTimer <-chan time.Time // when they must be
		ordered    *inOrder         // bfs, lockstep: results wait for those sent before them
	)
	// The bfs queue's order does not change with commits, so a lockstep
	// bfs crawl needs no rounds: committing in send order is enough.
	lockstep := c.cfg.Lockstep && c.order != FIFO
	if c.order == FIFO || lockstep {
		ordered = newInOrder()
	}
	receive := func(r result) {
		out.received(r.entry, r.canceled)
		inflight--
		inflightTopic[r.entry.Topic]--
		if ordered == nil {
			unflushed = append(unflushed, r)
			return
		}
		unflushed = ordered.receive(r, unflushed)
	}
	held := func() int {
		if ordered == nil {
			return 0
		}
		return len(ordered.held)
	}
	flush := func() error {
		err := commit(unflushed)
		unflushed, flushTimer = nil, nil
		return err
	}
	// In-flight fetches may fail and give their place back, so the page
	// budget is checked again as their results arrive.
	budgetLeft := func() bool {
		queued := inflight + len(pending) + len(unflushed) + held()
		return (c.cfg.MaxPages == 0 || sum.Succeeded+queued < c.cfg.MaxPages) &&
			(c.cfg.MaxFetches == 0 || sum.Total+queued < c.cfg.MaxFetches)
	}
	// budgetLeftN is how many more fetches the budgets allow now (or a
	// large number without budget).
	budgetLeftN := func() int {
		n := 1 << 20
		queued := inflight + len(pending) + len(unflushed) + held()
		if c.cfg.MaxPages > 0 {
			n = min(n, c.cfg.MaxPages-sum.Succeeded-queued)
		}
		if c.cfg.MaxFetches > 0 {
			n = min(n, c.cfg.MaxFetches-sum.Total-queued)
		}
		return n
	}
	topicOpen := func(t string) bool {
		return c.cfg.MaxPagesPerTopic == 0 || byTopic[t]+inflightTopic[t] < c.cfg.MaxPagesPerTopic
	}

loop:
	for {
		// A lockstep round commits once, when its last fetch is back: no
		// pop comes before then, so nothing needs its pushes sooner.
		if len(pending) == 0 && len(unflushed) > 0 && (!lockstep || inflight == 0) {
			if err := flush(); err != nil {
				runErr = err
				break loop
			}
		}
		pending = out.due(pending, inflight)
		// Refill, round-robin over the stacks (see popSize).
		if learn != nil && len(pending) == 0 && (!lockstep || inflight == 0) {
			if err := learn.rescore(ctx); err != nil {
				runErr = err
				break loop
			}
		}
		for len(pending) == 0 && budgetLeft() && ctx.Err() == nil && (!lockstep || inflight == 0) && !out.paused() {
			found := false
			for k := 0; k < len(c.stacks); k++ {
				t := c.stacks[(next+k)%len(c.stacks)]
				if !topicOpen(t) {
					continue
				}
				es, err := c.popTopic(ctx, st.ID, t, empty, budgetLeftN())
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					runErr = err
					break loop
				}
				if len(es) == 0 {
					continue
				}
				next = (next + k + 1) % len(c.stacks)
				pending = es
				found = true
				awaited = 0
				break
			}
			if !found {
				break
			}
		}
		if ctx.Err() != nil {
			finish = "interrupted"
			break
		}
		if err := out.stopped(); err != nil {
			runErr = err
			break
		}
		if len(pending) == 0 && inflight == 0 && (out.idle() || !budgetLeft()) {
			if budgetLeft() {
				// Other processes sharing the crawl may push or give back
				// URLs: wait for them (store.go).
				sf := c.cfg.Shared
				if sf == nil {
					sf, _ = c.store.(SharedFrontier)
				}
				// Work that this process's pops do not reach (a closed
				// topic) ends its share after a few tries.
				if sf != nil && awaited < 3 {
					awaited++
					more, err := sf.AwaitWork(ctx, st.ID)
					if ctx.Err() != nil {
						finish = "interrupted"
						break
					}
					if err != nil {
						runErr = err
						break
					}
					if more {
						clear(empty)
						continue
					}
				}
				finish = "frontier empty"
			} else {
				finish = "budget reached"
			}
			break
		}
		var send chan Entry
		var head Entry
		// Results held for an earlier, slow fetch stop new fetches at
		// 4 × Workers, which bounds their memory.
		if len(pending) > 0 && held() < 4*c.cfg.Workers {
			send, head = jobs, pending[0]
		}
		wake := out.wake()
		var tick <-chan time.Time
		if c.cfg.Progress != nil {
			tick = time.After(time.Until(lastProgress.Add(c.cfg.ProgressEvery)))
		}
		select {
		case send <- head:
			pending = pending[1:]
			inflight++
			inflightTopic[head.Topic]++
			if ordered != nil {
				ordered.send(head)
			}
		case r := <-results:
			receive(r)
		drain:
			for len(unflushed) < 256 {
				select {
				case r := <-results:
					receive(r)
				default:
					break drain
				}
			}
			// Stacks must see every push before the next pop; the bfs
			// queue's order does not change, so its commits are batched
			// (at most Workers results or 20 ms) and made in send order:
			// a crash loses at most the fetches in progress, the results
			// waiting for an earlier one and those of the open batch. A
			// lockstep round pops nothing before its end, so it commits
			// its results in one batch, in send order, at its end (above).
			if lockstep {
				break
			}
			if c.order != FIFO || len(pending) == 0 || len(unflushed) >= c.cfg.Workers {
				if err := flush(); err != nil {
					runErr = err
					break loop
				}
			} else if flushTimer == nil {
				flushTimer = time.After(20 * time.Millisecond)
			}
		case <-flushTimer:
			if err := flush(); err != nil {
				runErr = err
				break loop
			}
		case <-tick:
			c.progress(ctx, st.ID, sum, start, &sizes)
			lastProgress = time.Now()
		case <-wake:
		case <-ctx.Done():
		}
	}

	// Stop the workers; commit what finished. Entries popped but never
	// fetched stay leased and go back on their stacks at resume.
	close(jobs)
	if runErr != nil || ctx.Err() != nil {
		cancelWork()
	}
	go func() { wg.Wait(); close(results) }()
	for r := range results {
		receive(r)
	}
	rest := unflushed
	if ordered != nil {
		rest = ordered.rest(rest)
	}
	if err := commit(rest); err != nil && runErr == nil {
		runErr = err
	}
	if learn != nil && runErr == nil {
		runErr = learn.save(context.WithoutCancel(ctx))
	}
	sum.Elapsed = time.Since(start)
	if s := sum.Elapsed.Seconds(); s > 0 {
		sum.FetchesPerSec = float64(sum.Fetched) / s
		sum.PagesPerSec = float64(sum.Fetched-sum.Failed) / s
	}
	if c.cfg.Progress != nil {
		sizes.next = time.Time{} // the last line counts afresh
		c.progress(context.WithoutCancel(ctx), st.ID, sum, start, &sizes)
		fmt.Fprintln(c.cfg.Progress)
	}
	if runErr != nil {
		sum.Finish = "error"
		return sum, runErr
	}
	if ctx.Err() != nil {
		sum.Finish = "interrupted"
		return sum, ctx.Err()
	}
	sum.Finish = finish
	if err := c.store.FinishCrawl(ctx, st.ID, finish); err != nil {
		return sum, err
	}
	return sum, nil
}

// reserveOf names the reserve of a topic's stack: the links its
// classifier found off-topic, kept when Config.Tunnel is set.
func reserveOf(topic string) string { return topic + "~reserve" }

// partsOf names where Config.Sections puts a topic's links into the
// compound documents it already found, with Config.Tunnel: served after
// the reserve.
func partsOf(topic string) string { return topic + "~parts" }

// popTopic takes entries for topic: from its stack, or, when the stack is
// empty and tunnelling is on, the shallowest entries of its reserve (then
// of its parts), as many as from a stack (popSize: one, or a lockstep
// round). Sources found empty are marked in empty until a push
// reaches them.
func (c *Crawler) popTopic(ctx context.Context, crawl int64, topic string, empty map[string]bool, left int) ([]Entry, error) {
	c.publishNorm() // sitenorm.go
	if !empty[topic] {
		es, err := c.store.Pop(ctx, crawl, topic, c.order, c.popSize(left), c.cfg.MaxPerHost)
		if err != nil || len(es) > 0 {
			return es, err
		}
		empty[topic] = true
	}
	for _, res := range c.fallbacks(topic) {
		if empty[res] {
			continue
		}
		es, err := c.store.Pop(ctx, crawl, res, Shallowest, c.popSize(left), c.cfg.MaxPerHost)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			empty[res] = true
			continue
		}
		for i := range es {
			es[i].Topic = topic // fetched for the topic; counted with it
		}
		return es, nil
	}
	return nil, nil
}

// fallbacks lists where topic's entries come from once its stack is
// empty: its reserve when tunnelling, then, with sections, its parts.
func (c *Crawler) fallbacks(topic string) []string {
	if c.order == FIFO {
		return nil
	}
	var out []string
	if c.cfg.Tunnel {
		out = append(out, reserveOf(topic))
	}
	if c.cfg.Sections && (c.cfg.Tunnel || c.cfg.Learner != nil) {
		out = append(out, partsOf(topic))
	}
	return out
}

// popSize is how many entries to take from a stack at once: one for the
// per-topic stacks and best-first, whose order changes with every commit,
// and up to the number of workers for the bfs queue, whose order does not,
// and for a round of a lockstep crawl.
func (c *Crawler) popSize(left int) int {
	if c.order != FIFO && !c.cfg.Lockstep {
		return 1
	}
	return max(1, min(c.cfg.Workers, 32, left))
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

func (c *Crawler) progress(ctx context.Context, crawl int64, sum Summary, start time.Time, fs *frontierSizes) {
	var b strings.Builder
	el := time.Since(start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(sum.Fetched) / el
	}
	fmt.Fprintf(&b, "\rpages %d (failed fetches %d)", sum.Succeeded, sum.Total-sum.Succeeded)
	for _, t := range c.topics {
		fmt.Fprintf(&b, " | %s relevant %d", t, sum.Relevant[t])
	}
	if sizes := fs.get(ctx, c.store, crawl); sizes != nil {
		b.WriteString(" | frontier")
		for _, s := range c.stacks {
			name := s
			if name == "" {
				name = "queue"
			}
			fmt.Fprintf(&b, " %s %d", name, sizes[s])
			for k, fb := range c.fallbacks(s) {
				sep := ", "
				if k == 0 {
					sep = " ("
				}
				fmt.Fprintf(&b, "%s%s %d", sep, strings.TrimPrefix(fb, s+"~"), sizes[fb])
				if k == len(c.fallbacks(s))-1 {
					b.WriteString(")")
				}
			}
		}
	}
	fmt.Fprintf(&b, " | %.0f pages/s   ", rate)
	fmt.Fprint(c.cfg.Progress, b.String())
}

// worker turns one entry into a page record and the entries to push.
type worker struct {
	c      *Crawler
	tokens []string
	vals   []float64
}

func newWorker(c *Crawler) *worker { return &worker{c: c} }

func (w *worker) process(ctx context.Context, e Entry) result {
	c := w.c
	p := &Page{URL: e.URL, FinalURL: e.URL, Topic: e.Topic, Depth: e.Depth, FetchedAt: c.cfg.Now()}
	r := result{entry: e, page: p}
	res, err := w.fetchFollowing(ctx, e, p) // redirect.go
	if res != nil {
		p.Status = res.Status
		if !res.FinalURL.IsZero() {
			p.FinalURL = res.FinalURL
		}
		p.Duration = res.Duration
		p.Exchanges = res.Exchanges
	}
	r.push = w.sitemapEntries(ctx, e, p)
	if err != nil {
		if ctx.Err() != nil || fetch.ReasonOf(err) == fetch.ReasonCanceled {
			r.canceled = true
			return r
		}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			p.Status = fe.Status
			p.Failure = string(fe.Reason) + ": " + errText(fe.Err)
		} else {
			p.Failure = "fetch: " + err.Error()
		}
		return r
	}
	if !res.Location.IsZero() {
		r.push = append(r.push, c.redirected(e, p, res.Location)...)
		return r
	}
	p.Size = len(res.Body)
	p.ContentType = res.ContentType
	p.ETag = res.Header.Get("ETag")
	p.Modified = res.Header.Get("Last-Modified")
	sum := sha256.Sum256(res.Body)
	p.ContentHash = hex.EncodeToString(sum[:])
	pg, err := segment.Split(res.Body, res.ContentType, p.FinalURL, c.cfg.Segment)
	if err != nil {
		p.Failure = "parse: " + err.Error()
		return r
	}
	p.Title = pg.Title
	p.Text = pg.Text
	p.Signature = c.signer.Sign(p.Text)
	var pageRel []bool
	if c.scorer != nil {
		p.Scores = c.scorer.ScorePage(pg.Tokens, nil)
		p.Relevant = make([]bool, len(p.Scores))
		for i, s := range p.Scores {
			p.Relevant[i] = s >= c.scorer.Threshold(i)
		}
		pageRel = p.Relevant
	}
	scoreLinks := c.scorer != nil && (c.cfg.Strategy == StrategyLink || c.cfg.Strategy == StrategyLinkBacklinks)
	linkScorer, _ := c.scorer.(LinkScorer)
	learner := c.cfg.Learner
	var lf LinkFeatures
	if learner != nil {
		lf = LinkFeatures{Source: p.FinalURL, Depth: e.Depth + 1, Page: p.Scores}
	}
	depth := e.Depth + 1
	followable := c.cfg.MaxDepth == 0 || depth <= c.cfg.MaxDepth
	type best struct {
		scores []float64
	}
	var bests map[urlnorm.URL]*best
	var order []urlnorm.URL
	if followable {
		bests = make(map[urlnorm.URL]*best, len(pg.Segments))
	}
	p.Links = make([]Link, 0, len(pg.Segments))
	for _, s := range pg.Segments {
		l := Link{Target: s.URL, Anchor: strings.Join(s.Anchor, " ")}
		w.tokens = s.Tokens(w.tokens[:0])
		l.Context = strings.Join(w.tokens, " ")
		switch {
		case scoreLinks && linkScorer != nil:
			l.Scores = linkScorer.ScoreLink(s.URL, w.tokens, nil)
		case scoreLinks:
			l.Scores = c.scorer.Score(w.tokens, nil)
		}
		p.Links = append(p.Links, l)
		if !followable || len(s.URL.String()) > c.cfg.MaxURLLength || s.URL == p.FinalURL || s.URL == p.URL || c.skipped(s.URL) || c.known[s.URL] {
			continue
		}
		vals := l.Scores
		if learner != nil && scoreLinks {
			lf.Target, lf.Tokens, lf.Base = s.URL, w.tokens, l.Scores
			w.vals = learner.ScoreLink(&lf, w.vals[:0])
			vals = w.vals
		}
		b := bests[s.URL]
		if b == nil {
			b = &best{scores: make([]float64, len(vals))}
			copy(b.scores, vals)
			bests[s.URL] = b
			order = append(order, s.URL)
			continue
		}
		for i, v := range vals {
			if v > b.scores[i] {
				b.scores[i] = v
			}
		}
	}
	// Push in document order reversed, so that on a stack the first link
	// of the page is popped first.
	for k := len(order) - 1; k >= 0; k-- {
		u := order[k]
		switch c.cfg.Strategy {
		case StrategyBFS:
			r.push = append(r.push, Entry{Topic: "", URL: u, Depth: depth, Parent: p.FinalURL})
		case StrategyPage:
			for i, rel := range pageRel {
				if rel {
					r.push = append(r.push, Entry{Topic: c.topics[i], URL: u, Depth: depth, Score: p.Scores[i], Parent: p.FinalURL})
				}
			}
		default:
			for i, v := range bests[u].scores {
				if learner != nil || v >= c.scorer.Threshold(i) {
					r.push = append(r.push, Entry{Topic: c.topics[i], URL: u, Depth: depth, Score: v, Parent: p.FinalURL})
				} else if c.cfg.Tunnel {
					r.push = append(r.push, Entry{Topic: reserveOf(c.topics[i]), URL: u, Depth: depth, Score: v, Parent: p.FinalURL})
				}
			}
		}
	}
	if c.cfg.Strategy == StrategyBFS {
		// FIFO: the first link must be queued first.
		for i, j := 0, len(r.push)-1; i < j; i, j = i+1, j-1 {
			r.push[i], r.push[j] = r.push[j], r.push[i]
		}
	}
	w.measureNorm(ctx, e, p) // sitenorm.go
	return r
}

// skipped reports whether u's path ends in an extension not followed.
func (c *Crawler) skipped(u urlnorm.URL) bool {
	if len(c.skip) == 0 {
		return false
	}
	p := u.Path()
	slash := strings.LastIndexByte(p, '/')
	dot := strings.LastIndexByte(p, '.')
	if dot <= slash || dot == len(p)-1 {
		return false
	}
	return c.skip[strings.ToLower(p[dot+1:])]
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

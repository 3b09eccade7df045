package crawler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// run is the state of one Crawler.Run: the scheduler's loop, which owns
// the store, hands entries to the workers and commits their results.
type run struct {
	c      *Crawler
	ctx    context.Context
	start  time.Time
	sum    Summary
	budget *budget
	front  *frontier
	learn  *learning // nil without a Learner
	out    *outage

	// relevantBefore counts, per topic, the relevant pages of the runs
	// before this one of a resumed crawl, for the progress line.
	relevantBefore map[string]int

	work       chan job
	results    chan result
	cancelWork context.CancelFunc
	workers    sync.WaitGroup

	commits   chan *commitJob // to the committer
	committed chan error      // from the committer, one per job
	batch     *commitJob      // with the committer, nil when it is idle

	inflight   int
	pending    []job               // popped, not yet handed to a worker
	fetching   map[urlnorm.URL]int // URLs of jobs handed out and not committed (site rules)
	unflushed  []result            // received, not yet handed to the committer
	flushTimer <-chan time.Time    // when unflushed must be committed
	ordered    *inOrder            // bfs, lockstep: results wait for those sent before them
	lockstep   bool
	overlap    bool        // lockstep rounds fetched while the one before commits (Config.Overlap)
	ahead      []Entry     // overlap: popped for the next round, not handed out yet
	holder     ModelHolder // overlap: the learner, when it holds its models until told

	// A lockstep crawl that guesses its rounds (Config.Speculate,
	// guess.go) tells its fetches by tag.
	guess      *guesser
	nextTag    int64
	guessed    map[urlnorm.URL]job    // the round's guesses its pop has not confirmed yet
	held       map[int64]result       // results of guesses back before the pop
	discarding map[int64]bool         // guessed fetches in flight that the pop did not take
	wanted     map[int64]Entry        // fetches of the round's entries not back yet
	roundOrder []Entry                // the round's entries, in the order taken
	roundRes   map[urlnorm.URL]result // their results back
	dueNext    []Entry                // retries that join the round after its pop
	gate       chan struct{}          // closed when the pop of the guessed round is in

	// The committer pops the next entries after it commits a batch: a
	// crawl not in lockstep once fewer than lowWater wait in pending,
	// while the workers fetch them (feed); a lockstep crawl the next
	// round, once the last one is back (round).
	lowWater  int  // pop when fewer entries than this wait in pending
	flushSize int  // commit once this many results are received
	flushDue  bool // the batch timer fired
	dry       bool // the last pop found nothing, and nothing was committed since

	lastProgress time.Time
	sizes        frontierSizes
}

// Run crawls from seeds (used only when the crawl is new) until the
// frontier is empty, a budget is reached or ctx ends. When ctx ends, the
// pages already fetched are committed and the crawl can be resumed by
// running it again; Run then returns ctx's error with the summary.
func (c *Crawler) Run(ctx context.Context, seeds []urlnorm.URL, config string) (Summary, error) {
	r, err := c.open(ctx, seeds, config)
	if err != nil {
		return r.sum, err
	}
	if err := r.group(r.c.cfg.GroupCommit); err != nil {
		return r.sum, err
	}
	r.startWorkers()
	r.startCommitter()
	for {
		turn := r.feed
		switch {
		case r.guess != nil:
			turn = r.guessRound
		case r.lockstep:
			turn = r.round
		}
		if err := turn(); err != nil {
			return r.end("", err)
		}
		finish, again, err := r.finished()
		if finish != "" || err != nil {
			return r.end(finish, err)
		}
		if again {
			r.dry = false
			continue // pop again at once
		}
		if err := r.step(); err != nil {
			return r.end("", err)
		}
	}
}

// open opens (or resumes) the crawl in the store and its learner.
func (c *Crawler) open(ctx context.Context, seeds []urlnorm.URL, config string) (*run, error) {
	r := &run{c: c, ctx: ctx, start: time.Now(), front: newFrontier(c), lastProgress: time.Now()}
	c.seeds = make(map[urlnorm.URL]bool, len(seeds))
	for _, u := range seeds {
		c.seeds[u] = true
	}
	params := c.signer.Params()
	spec := r.front.spec(CrawlSpec{Name: c.cfg.Name, Strategy: c.cfg.Strategy, Topics: c.topics, Seeds: seeds, Config: config, MinHash: &params,
		MaxWaitingPerHost: max(c.cfg.MaxFrontierPerHost, 0), MaxWaiting: max(c.cfg.MaxFrontier, 0),
		Learnt: c.cfg.Learnt})
	st, err := c.store.OpenCrawl(ctx, spec)
	if err != nil {
		return r, err
	}
	c.crawlID, r.front.crawl = st.ID, st.ID
	if c.cfg.Opened != nil {
		if err := c.cfg.Opened(st); err != nil {
			return r, err
		}
	}
	if st.Resumed {
		r.relevantBefore = make(map[string]int)
		count := func(p *Page) {
			for t, rel := range p.Relevant {
				if rel {
					r.relevantBefore[t]++
				}
			}
		}
		if err := r.front.resume(ctx, count); err != nil {
			return r, err
		}
	}
	r.sum = Summary{Crawl: st.ID, Resumed: st.Resumed, Total: st.Fetched, Succeeded: st.Succeeded, Relevant: make(map[string]int)}
	r.budget = newBudget(c.cfg, st)
	if c.cfg.Learner != nil {
		r.learn = &learning{l: c.cfg.Learner, store: c.store, crawl: st.ID, memEvery: c.cfg.LearnerMemoryEvery, memSaved: time.Now()}
		if st.Learner != nil {
			if err := c.cfg.Learner.RestoreState(st.Learner); err != nil {
				return r, fmt.Errorf("resume crawl %s: %w", c.cfg.Name, err)
			}
		} else if p, ok := c.cfg.Learner.(Primer); ok {
			if err := p.PrimeCrawl(ctx); err != nil {
				return r, fmt.Errorf("crawl %s: %w", c.cfg.Name, err)
			}
		}
	}
	if c.cfg.SiteNorm != nil {
		r.fetching = make(map[urlnorm.URL]int)
	}
	r.out = newOutage(ctx, unwrapOutage(c.fetcher), c.cfg) // transient failures: see outage.go
	c.fetcher = r.out
	// The bfs queue's order does not change with commits, so a lockstep
	// bfs crawl needs no rounds: committing in send order is enough.
	r.lockstep = c.cfg.Lockstep && c.order != FIFO
	r.overlap = r.lockstep && c.cfg.Overlap && c.cfg.SiteNorm == nil
	c.queueRedirects = r.overlap
	if h, ok := c.cfg.Learner.(ModelHolder); ok && r.overlap {
		r.holder = h
		h.HoldModels()
	}
	if c.cfg.Speculate && r.lockstep && !r.overlap && c.cfg.SiteNorm == nil {
		r.guess = newGuesser(c.order, r.front.batch)
		c.kept = newKeptFetches()
		r.front.guess = r.guess
		r.guessed, r.held, r.discarding = make(map[urlnorm.URL]job), make(map[int64]result), make(map[int64]bool)
		r.wanted, r.roundRes = make(map[int64]Entry), make(map[urlnorm.URL]result)
	} else if c.order == FIFO || r.lockstep {
		r.ordered = newInOrder()
	}
	r.lowWater, r.flushSize = r.front.batch, c.cfg.Workers
	if c.order == FIFO {
		r.flushSize = max(1, r.front.batch/2)
	}
	return r, nil
}

// startWorkers starts the pool that turns entries into results.
func (r *run) startWorkers() {
	r.work = make(chan job)
	r.results = make(chan result, r.c.cfg.Workers)
	var workCtx context.Context
	workCtx, r.cancelWork = context.WithCancel(r.ctx)
	for i := 0; i < r.c.cfg.Workers; i++ {
		r.workers.Add(1)
		go func() {
			defer r.workers.Done()
			w := newWorker(r.c)
			for j := range r.work {
				r.results <- w.process(workCtx, j)
			}
		}()
	}
}

// queued counts the fetches taken from the frontier but not committed,
// those waiting to be fetched again after a transient failure among them.
func (r *run) queued() int {
	n := r.inflight + len(r.pending) + len(r.unflushed) + len(r.ahead)
	if r.guess != nil {
		n = len(r.wanted) + len(r.roundRes) + len(r.unflushed) // guesses are not taken yet
	}
	n += r.out.waitingCount()
	if r.batch != nil {
		n += len(r.batch.rs)
	}
	if r.ordered != nil {
		n += len(r.ordered.held)
	}
	return n
}

// queue appends es, taken from the frontier (or the outage's retries),
// to the entries waiting for a worker.
func (r *run) queue(es []Entry) {
	r.take(es)
	r.pending = append(r.pending, r.jobs(es)...)
}

// take counts es, taken from the frontier, against the budget.
func (r *run) take(es []Entry) {
	for _, e := range es {
		r.budget.taken[e.Topic]++
	}
}

// round runs a lockstep crawl's rounds: once a round's fetches are all
// back, the committer commits its results, in the order they were
// taken, and then (after the learner's rescore) pops the next round,
// which goes out when it is back; the learner's values and the site
// rules the next round sees are those of every round before it, however
// its fetches are timed.
//
// With Config.Overlap the next round was popped ahead, after the round
// before this one: it goes out at once (with the learner's models built
// by then) while the committer commits this round and pops the round
// after the next. Every choice is still made at a round's end from the
// rounds committed by then, so the crawl repeats exactly.
func (r *run) round() error {
	if r.inflight > 0 || len(r.pending) > 0 {
		return nil // the round goes on
	}
	defer func(start time.Time) { r.sum.BetweenRounds += time.Since(start) }(time.Now())
	if err := r.settle(); err != nil {
		return err
	}
	if len(r.ahead) == 0 && (len(r.unflushed) > 0 || !r.dry) {
		// Commit and pop now: always in plain lockstep; with overlap at
		// the crawl's start, or when the last pop found the stacks empty.
		if err := r.handOver(); err != nil {
			return err
		}
		if err := r.settle(); err != nil {
			return err
		}
	}
	if r.overlap {
		if r.holder != nil {
			r.holder.PublishModels()
		}
		r.pending = append(r.pending, r.jobs(r.ahead)...)
		r.ahead = nil
		if len(r.unflushed) > 0 || (!r.dry && len(r.pending) > 0) {
			if err := r.handOver(); err != nil {
				return err
			}
		}
	}
	r.queue(r.out.due(nil, r.inflight))
	return nil
}

// handOver hands the committer the results received and a pop of the
// next entries after them, when the budget and the frontier may give
// any.
func (r *run) handOver() error {
	pop := 0
	if (!r.dry || len(r.unflushed) > 0) && r.budget.open(r.queued()) && r.ctx.Err() == nil && !r.out.paused() {
		pop = r.front.popSize(r.budget.room(r.queued()))
	}
	return r.flush(pop)
}

// feed keeps the workers of a crawl not in lockstep fed while the store
// catches up. When the committer is idle it hands it the results
// received, once flushSize of them gathered, the batch timer fired or no
// fetch is left in flight, and, when fewer than lowWater entries wait, a
// pop of the next ones after the commit. A bfs queue serves the same
// entries however far ahead it pops; per-topic stacks serve choices at
// most one batch old.
func (r *run) feed() error {
	if r.batch != nil {
		return nil
	}
	r.queue(r.out.due(nil, r.inflight))
	if len(r.pending) < r.lowWater {
		return r.handOver()
	}
	if len(r.unflushed) < r.flushSize && !r.flushDue && (r.inflight > 0 || len(r.unflushed) == 0) {
		return nil
	}
	return r.flush(0)
}

// finished tells why the crawl ends now, or "" while it goes on; again
// when the loop should pop at once: the last pop was cut short by the
// budget, which the commit after it opened again (fetches that failed
// gave their places back), or the frontier was empty but other
// processes sharing the crawl may have pushed since.
func (r *run) finished() (finish string, again bool, err error) {
	if r.ctx.Err() != nil {
		return "interrupted", false, nil
	}
	if err := r.out.stopped(); err != nil {
		return "", false, err
	}
	if len(r.pending) > 0 || r.inflight > 0 || r.batch != nil || len(r.unflushed) > 0 || len(r.ahead) > 0 {
		return "", false, nil
	}
	switch {
	case !r.budget.open(r.queued()):
		if r.out.waitingCount() > 0 {
			return "", false, nil // the budget is theirs: wait for them
		}
		return "budget reached", false, nil
	case !r.dry && !r.out.paused():
		return "", true, nil
	case r.out.idle():
		more, err := r.front.await(r.ctx)
		if errors.Is(err, ErrSharedBudgetSpent) {
			return "budget reached", false, nil
		}
		if more || err != nil {
			return "", more, err
		}
		if r.front.closed {
			return "budget reached", false, nil // a topic's, with entries left on its stack
		}
		return "frontier empty", false, nil
	}
	return "", false, nil
}

// step waits for one event: a worker free for the next entry, a result,
// the batch timer, a progress update or the outage's wake-up.
func (r *run) step() error {
	var send chan job
	var head job
	// Results held for an earlier, slow fetch stop new fetches at
	// 4 × Workers, which bounds their memory. Not in lockstep, a fetch
	// out for passAfter while they wait (a server holding its
	// connection, a fetch retried) is passed: the results held are
	// committed without it, and it is when it comes back.
	var pass <-chan time.Time
	if len(r.pending) > 0 && (r.ordered == nil || len(r.ordered.held) < 4*r.c.cfg.Workers) {
		send, head = r.work, r.pending[0]
	} else if len(r.pending) > 0 && !r.lockstep {
		wait := time.Until(r.ordered.awaitedSince().Add(passAfter))
		if wait <= 0 {
			r.passHeld()
			return nil
		}
		pass = time.After(wait)
	}
	var committed <-chan error
	if r.batch != nil {
		committed = r.committed
	}
	var tick <-chan time.Time
	if r.c.cfg.Progress != nil {
		tick = time.After(time.Until(r.lastProgress.Add(r.c.cfg.ProgressEvery)))
	}
	select {
	case send <- head:
		r.pending = r.pending[1:]
		r.inflight++
		if r.ordered != nil {
			r.ordered.send(head.e)
		}
	case res := <-r.results:
		return r.received(res)
	case err := <-committed:
		return r.done(err)
	case <-r.flushTimer:
		r.flushTimer, r.flushDue = nil, true
	case <-pass:
		r.passHeld()
	case <-tick:
		r.progress(r.ctx, false)
	case <-r.out.wake():
	case <-r.ctx.Done():
	}
	return nil
}

// received takes a result and those that arrived with it. A crawl not
// in lockstep commits them in batches (feed): once flushSize gathered,
// 50 ms after the first, when a pop is due or no fetch is left in
// flight; a bfs crawl commits in send order. A crash loses at most the
// fetches in progress, the results waiting for an earlier one and those
// not yet committed: their entries stay leased and are served again at
// resume. A lockstep round pops nothing before its end, so it commits
// its results in one batch, in send order, at its end (round).
func (r *run) received(res result) error {
	r.receive(res)
	for len(r.unflushed) < 256 {
		select {
		case res := <-r.results:
			r.receive(res)
			continue
		default:
		}
		break
	}
	r.armFlush()
	return nil
}

// armFlush starts the batch timer (50 ms) for results waiting to be
// committed, unless it runs or a flush is due already.
func (r *run) armFlush() {
	if r.flushTimer == nil && !r.flushDue && len(r.unflushed) > 0 {
		r.flushTimer = time.After(50 * time.Millisecond)
	}
}

// receive counts a result back from a worker and holds it for commit;
// the site normalization rules count the results in the order they will
// be committed, as soon as they are (sitenorm.go).
func (r *run) receive(res result) {
	r.inflight--
	if r.guess != nil {
		r.receiveGuessed(res) // the outage hears of it once the pop is in
		return
	}
	r.out.received(res.entry, res.retryAt)
	if res.canceled {
		r.budget.taken[res.entry.Topic]--
	}
	n := len(r.unflushed)
	if r.ordered == nil {
		r.unflushed = append(r.unflushed, res)
	} else {
		r.unflushed = r.ordered.receive(res, r.unflushed)
	}
	r.observe(n)
	// A crawl not in lockstep measures by what it knows at once; a
	// lockstep round, by what it knew at its start (publishNorm at pop).
	if !r.lockstep && n < len(r.unflushed) {
		r.c.publishNorm()
	}
}

// passAfter is how long a crawl not in lockstep waits for a fetch that
// holds back 4 × Workers results sent after it before it commits them
// without it (step).
var passAfter = 5 * time.Second

// passHeld commits the results held for an earlier fetch still out
// (inOrder.pass), as receive does the results it gives in order.
func (r *run) passHeld() {
	n := len(r.unflushed)
	r.unflushed = r.ordered.pass(r.unflushed)
	r.observe(n)
	if n < len(r.unflushed) {
		r.c.publishNorm()
	}
	r.armFlush()
}

// observe has the site normalization rules count the results held for
// commit from r.unflushed[from] on (sitenorm.go).
func (r *run) observe(from int) {
	for _, res := range r.unflushed[from:] {
		if !res.canceled {
			r.c.observeNorm(res.page)
		}
	}
}

// commitJob is one batch of results for the committer, and the pop it
// makes after it commits them.
type commitJob struct {
	rs    []result
	pages []*Page
	push  []Entry
	flush []Entry // the learner's deferred moves of entries push pushes again: written first

	pop    int            // entries to take after the commit (0: none)
	learnt chan step      // a crawl that guesses: the learner's step, from the scheduler
	rooms  map[string]int // fetches each topic's budget allowed when the pop was asked (nil: no such budget)
	popped []Entry        // what the pop took
}

// startCommitter starts the goroutine that commits the batches of
// results while the scheduler goes on handing out entries and receiving
// results: fetchers never wait for a commit. It commits one batch at a
// time, in order, lets the learner see each batch once it is stored
// (Learner.Observe in commit order, from that one goroutine), and then
// makes the batch's pop, if any (after the learner's rescore). The
// scheduler calls no Store method and leaves the frontier and the
// learner alone while a batch is with it (settle, feed).
func (r *run) startCommitter() {
	r.commits = make(chan *commitJob)
	r.committed = make(chan error, 1)
	go func() {
		for j := range r.commits {
			r.committed <- r.commit(j)
		}
	}()
}

// commit commits j's pages and makes its pop, on the committer. The
// learner learns from the batch (and rescores) while the store commits
// it; its moves and state are written once the commit succeeded.
func (r *run) commit(j *commitJob) error {
	ctx := context.WithoutCancel(r.ctx)
	learnt := j.learnt
	if learnt == nil && r.learn != nil && (len(j.pages) > 0 || j.pop > 0) {
		learnt = make(chan step, 1)
		rs := learnerCopies(j)
		go func() { learnt <- r.learn.step(rs, j.pop > 0) }()
	}
	if len(j.flush) > 0 {
		if err := r.c.store.Rescore(ctx, r.front.crawl, j.flush); err != nil {
			if learnt != nil {
				<-learnt
			}
			return err
		}
	}
	if len(j.pages) > 0 {
		err := r.c.store.Commit(ctx, r.front.crawl, j.pages, j.push)
		if err != nil {
			if learnt != nil {
				<-learnt
			}
			return err
		}
		r.front.pushed(j.push)
	}
	if learnt != nil {
		st := <-learnt
		if r.learn != nil {
			if err := r.learn.apply(ctx, st); err != nil {
				return err
			}
		}
	}
	if j.pop == 0 {
		return nil
	}
	var err error
	j.popped, err = r.front.take(r.ctx, j.rooms, j.pop)
	return err
}

// learnerCopies returns j's results for the learner, each with its own
// copy of its page, or nil when j stores no page: the store may turn a
// page into an alias of a page already stored (its fetch reached that
// page too), which the learner learns from all the same.
func learnerCopies(j *commitJob) []result {
	if len(j.pages) == 0 {
		return nil
	}
	rs := make([]result, len(j.rs))
	for i, res := range j.rs {
		if res.page != nil {
			cp := *res.page
			res.page = &cp
		}
		rs[i] = res
	}
	return rs
}

// flush hands the received results to the committer, with a pop of pop
// entries after them (0: none), unless it is busy with a batch (they
// then go with the next one).
func (r *run) flush(pop int) error {
	if r.batch != nil {
		return nil
	}
	j := r.prepare(r.unflushed)
	if len(j.pages) == 0 {
		r.fetched(r.unflushed) // all canceled: they wait for a resume
		j.rs = nil
	}
	r.unflushed, r.flushTimer, r.flushDue = nil, nil, false
	if len(j.pages) == 0 && pop == 0 {
		return nil
	}
	if pop > 0 {
		j.pop, j.rooms = pop, r.budget.topicRooms(r.front.topics)
	}
	r.batch = j
	if r.guess == nil {
		r.commits <- j
		return nil
	}
	return r.flushGuessing(j)
}

// prepare makes the batch of rs: their pages (canceled fetches stay
// leased) and what they push after the stack policies.
func (r *run) prepare(rs []result) *commitJob {
	j := &commitJob{rs: rs, pages: make([]*Page, 0, len(rs))}
	for _, res := range rs {
		if !res.canceled {
			j.pages = append(j.pages, res.page)
		}
	}
	if len(j.pages) > 0 {
		j.push = r.c.canonical(r.front.route(rs)) // sitenorm.go
		if r.front.deferrer != nil {
			j.flush = r.front.deferrer.DeferredOf(j.push)
		}
	}
	return j
}

// settle waits for the batch with the committer, if any, and counts it.
func (r *run) settle() error {
	if r.batch == nil {
		return nil
	}
	return r.done(<-r.committed)
}

// done counts the committed batch, which the committer answered with err.
func (r *run) done(err error) error {
	j := r.batch
	r.batch = nil
	if err != nil {
		return err
	}
	for _, res := range j.rs {
		if !res.canceled {
			r.budget.taken[res.entry.Topic]--
		}
	}
	for _, p := range j.pages {
		if r.guess != nil {
			r.guess.committed(p)
		}
		r.budget.commit(p)
		r.sum.Fetched++
		if p.Failure != "" {
			r.sum.Failed++
		}
		for t, rel := range p.Relevant {
			if rel {
				r.sum.Relevant[t]++
			}
		}
	}
	r.fetched(j.rs)
	if j.pop > 0 {
		r.dry = len(j.popped) == 0
		switch {
		case r.overlap:
			r.take(j.popped)
			r.ahead = append(r.ahead, j.popped...)
		case r.guess != nil:
			r.confirm(j.popped)
		default:
			r.queue(j.popped)
		}
	}
	return nil
}

// end stops the workers, commits what finished and closes the run with
// finish (the reason the loop ended) or runErr. Entries popped but never
// fetched stay leased and go back on their stacks at resume.
func (r *run) end(finish string, runErr error) (Summary, error) {
	if r.holder != nil {
		defer r.holder.PublishModels() // the learner ends with the models it built
	}
	close(r.work)
	if r.gate != nil {
		close(r.gate) // a pop that never came: its guesses are dropped
		r.gate = nil
	}
	if runErr != nil || r.ctx.Err() != nil {
		r.cancelWork()
	}
	go func() { r.workers.Wait(); close(r.results) }()
	for res := range r.results {
		r.receive(res)
	}
	r.out.close()
	defer r.cancelWork()
	if err := r.settle(); err != nil && runErr == nil {
		runErr = err
	}
	if r.guess != nil {
		r.sum.Discarded += len(r.held) + len(r.guessed)
		for _, res := range r.held {
			r.out.discarded(res.entry.URL)
		}
		clear(r.held)
		clear(r.guessed)
		r.takeRound()
	}
	if r.ordered != nil {
		n := len(r.unflushed)
		r.unflushed = r.ordered.pass(r.unflushed)
		r.observe(n)
	}
	if err := r.flush(0); err != nil && runErr == nil {
		runErr = err
	}
	if err := r.settle(); err != nil && runErr == nil {
		runErr = err
	}
	close(r.commits)
	if r.learn != nil && runErr == nil {
		// The store keeps every value the learner gave, deferred or not,
		// for a later run of the crawl.
		runErr = r.front.writeAllDeferred(context.WithoutCancel(r.ctx))
	}
	if r.learn != nil && runErr == nil {
		runErr = r.learn.save(context.WithoutCancel(r.ctx))
	}
	sum := &r.sum
	sum.Total, sum.Succeeded = r.budget.total, r.budget.succeeded
	sum.Elapsed = time.Since(r.start)
	if s := sum.Elapsed.Seconds(); s > 0 {
		sum.FetchesPerSec = float64(sum.Fetched) / s
		sum.PagesPerSec = float64(sum.Fetched-sum.Failed) / s
	}
	if r.c.cfg.Progress != nil {
		r.progress(context.WithoutCancel(r.ctx), true)
	}
	switch {
	case runErr != nil:
		sum.Finish = "error"
		return *sum, errors.Join(runErr, r.group(0))
	case r.ctx.Err() != nil:
		sum.Finish = "interrupted"
		return *sum, errors.Join(r.ctx.Err(), r.group(0))
	}
	sum.Finish = finish
	if err := r.c.store.FinishCrawl(r.ctx, r.front.crawl, finish); err != nil {
		return *sum, errors.Join(err, r.group(0))
	}
	return *sum, r.group(0)
}

// group has a store that can keep its writes in one transaction for a
// while (Grouper) commit them every d while the crawl runs
// (Config.GroupCommit); d = 0, when the crawl ends however it ends,
// commits the open group: the results committed are kept.
func (r *run) group(d time.Duration) error {
	g, ok := StoreAs[Grouper](r.c.store)
	if !ok || r.c.cfg.GroupCommit <= 0 {
		return nil
	}
	return g.GroupCommits(context.WithoutCancel(r.ctx), d)
}

// inOrder gives results back in the order their entries were sent to the
// workers. A breadth-first queue that commits in that order receives its
// pushes as a single worker would make them, so which pages a bfs crawl
// fetches does not depend on which fetch finishes first. Results waiting
// for an earlier one are at most the fetches in flight, or 4 × Workers
// in a crawl not in lockstep, which then passes the ones it waits for.
type inOrder struct {
	sent     map[urlnorm.URL]int // entry URL → send number
	sentAt   map[int]time.Time   // send number → when, for the results out
	held     map[int]result
	nextSend int
	nextOut  int
}

func newInOrder() *inOrder {
	return &inOrder{sent: make(map[urlnorm.URL]int), sentAt: make(map[int]time.Time), held: make(map[int]result)}
}

func (o *inOrder) send(e Entry) {
	o.sent[e.URL] = o.nextSend
	o.sentAt[o.nextSend] = time.Now()
	o.nextSend++
}

// awaitedSince is when the result the others wait for was sent: the
// next in order (one passed before and still out holds none back).
func (o *inOrder) awaitedSince() time.Time { return o.sentAt[o.nextOut] }

// receive holds r and appends to out the results now in order; a result
// passed (pass) is appended at once.
func (o *inOrder) receive(r result, out []result) []result {
	n := o.sent[r.entry.URL]
	delete(o.sent, r.entry.URL)
	delete(o.sentAt, n)
	if n < o.nextOut {
		return append(out, r)
	}
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

// pass appends to out the results held, in send order, without waiting
// for those sent before them that are still out: these are given back
// as they come (receive).
func (o *inOrder) pass(out []result) []result {
	keys := make([]int, 0, len(o.held))
	for k := range o.held {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, o.held[k])
		o.nextOut = max(o.nextOut, k+1)
	}
	clear(o.held)
	return out
}

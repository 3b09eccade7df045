package crawler

import (
	"cmp"
	"context"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/scent-crawler/scent/fetch"

	"github.com/scent-crawler/scent/urlnorm"
)

// A lockstep crawl with Config.Speculate guesses its next round in
// memory at a round's end and fetches the guess while the committer
// commits the round and pops the next one from the store; the pop
// decides (run.confirm). The guess is what the pop will take, as far as
// the guesser knows each stack: its first entries as the last pop of it
// saw them (Peeker), with the pushes and the learner's moves since
// applied as the store applies them. It needs no exactness: an entry of
// the pop not guessed is fetched then, a guessed fetch the pop did not
// take is discarded.
type guesser struct {
	order  Order
	peek   int                    // entries to read past a pop
	cap    int                    // entries known of each stack, at most
	pools  map[string][]candidate // per stack: its first entries as far as known, in order
	seq    int                    // pushes seen: a later push is higher
	recent recentSet              // URLs popped or fetched lately: not waiting
}

// recentCap bounds the URLs a guesser remembers as popped or fetched
// (8 bytes each, with the map's overhead about 40): when full it forgets
// them all and a few guesses miss.
const recentCap = 1 << 18

func newGuesser(order Order, batch int) *guesser {
	return &guesser{order: order, peek: batch, cap: 4 * batch, pools: make(map[string][]candidate),
		recent: recentSet{seed: maphash.MakeSeed(), m: make(map[uint64]struct{})}}
}

// recentSet is a bounded set of URLs by their hash.
type recentSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
}

func (s *recentSet) add(u urlnorm.URL) {
	if len(s.m) >= recentCap {
		clear(s.m)
	}
	s.m[maphash.String(s.seed, u.String())] = struct{}{}
}

func (s *recentSet) has(u urlnorm.URL) bool {
	_, ok := s.m[maphash.String(s.seed, u.String())]
	return ok
}

// candidate is an entry a guess may take, with its place among equals:
// a higher seq was pushed later.
type candidate struct {
	e   Entry
	seq int
}

// popped records a pop of the stack named stack: the entries it took,
// and what it saw next, which is now all the guesser knows of the stack.
func (g *guesser) popped(stack string, taken, next []Entry) {
	for _, e := range taken {
		g.recent.add(e.URL)
	}
	pool := make([]candidate, len(next))
	for i, e := range next {
		pool[i] = candidate{e: e, seq: g.seq - i} // below every later push, in the store's order
	}
	g.pools[stack] = pool
}

// committed records the URLs a committed page fetched: its own, each
// hop of its redirects and its final URL; not waiting. The target of a
// redirect not followed (Page.RedirectTo) was not fetched: it may wait.
func (g *guesser) committed(p *Page) {
	g.recent.add(p.URL)
	if !p.FinalURL.IsZero() {
		g.recent.add(p.FinalURL)
	}
	for _, rd := range p.Redirects {
		g.recent.add(rd.URL)
	}
}

// absorb applies a round's pushes (in order) and then the learner's moves
// to the stacks as far as known, as the store applies them
// (Store.Commit, Store.Rescore): a push of a waiting URL takes the higher
// score and the smaller depth and moves to the top; a move sets the
// score of a waiting entry (a move of an entry the guesser does not know
// is left out: its depth and place are unknown, and the pop corrects the
// guess). Each stack keeps its first cap entries.
func (g *guesser) absorb(push, moves []Entry) {
	touched := make(map[string]map[urlnorm.URL]int) // stack → URL → index in its pool
	index := func(stack string) map[urlnorm.URL]int {
		ix, ok := touched[stack]
		if !ok {
			ix = make(map[urlnorm.URL]int, len(g.pools[stack]))
			for i, c := range g.pools[stack] {
				ix[c.e.URL] = i
			}
			touched[stack] = ix
		}
		return ix
	}
	for _, e := range push {
		if g.recent.has(e.URL) {
			continue
		}
		g.seq++
		e.Parent = urlnorm.URL{}
		ix := index(e.Topic)
		pool := g.pools[e.Topic]
		if i, ok := ix[e.URL]; ok {
			old := pool[i].e
			e.Score, e.Depth = max(e.Score, old.Score), min(e.Depth, old.Depth)
			pool[i] = candidate{e: e, seq: g.seq}
			continue
		}
		ix[e.URL] = len(pool)
		g.pools[e.Topic] = append(pool, candidate{e: e, seq: g.seq})
	}
	for _, m := range moves {
		if i, ok := index(m.Topic)[m.URL]; ok {
			g.pools[m.Topic][i].e.Score = m.Score
		}
	}
	for stack := range touched {
		order := g.order
		if ParseStack(stack).Kind != Main {
			order = Shallowest // fallback stacks are served shallowest first
		}
		pool := slices.DeleteFunc(g.pools[stack], func(c candidate) bool { return g.recent.has(c.e.URL) })
		slices.SortFunc(pool, func(a, b candidate) int { return compareIn(order, a, b) })
		g.pools[stack] = pool[:min(len(pool), g.cap)]
	}
}

// guess returns the first n entries the pop of topic will take, as far
// as known: from its own stack, or, when that is empty, from the first of
// its fallback stacks (named fallbacks, in order) that has any, fetched
// for the topic.
func (g *guesser) guess(topic string, fallbacks []string, n int) []Entry {
	for _, stack := range append([]string{topic}, fallbacks...) {
		var out []Entry
		for _, c := range g.pools[stack] {
			if len(out) == n {
				break
			}
			if !g.recent.has(c.e.URL) {
				e := c.e
				e.Topic = topic
				out = append(out, e)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// compareIn orders candidates as the store's pop in order does.
func compareIn(order Order, a, b candidate) int {
	bySeq := cmp.Compare(b.seq, a.seq)
	byScore := cmp.Compare(b.e.Score, a.e.Score)
	switch order {
	case LIFO:
		return bySeq
	case SurveyFirst:
		deepA, deepB := a.e.Depth > SurveyDepth, b.e.Depth > SurveyDepth
		if deepA != deepB {
			if deepA {
				return 1
			}
			return -1
		}
	case Shallowest:
		if c := cmp.Compare(a.e.Depth, b.e.Depth); c != 0 {
			return c
		}
	}
	if byScore != 0 {
		return byScore
	}
	return bySeq
}

// guessRound runs the rounds of a lockstep crawl that guesses them. A
// round ends once its pop is confirmed (the committer is idle) and every
// entry it took is back; its results are then committed in the order
// the pop took them, with the pop of the next round, and the next round
// is guessed and fetched meanwhile (flushGuessing). What is committed,
// learnt and popped is what round commits, learns and pops.
func (r *run) guessRound() error {
	if r.batch != nil || len(r.wanted) > 0 {
		return nil // the round goes on
	}
	defer func(start time.Time) { r.sum.BetweenRounds += time.Since(start) }(time.Now())
	r.takeRound()
	due := r.out.due(nil, r.inflight)
	if len(r.unflushed) > 0 || !r.dry {
		if err := r.handOver(); err != nil {
			return err
		}
	}
	if r.batch != nil && r.batch.pop > 0 {
		r.dueNext = due // after the pop's entries, as round queues them
	} else {
		r.want(due)
	}
	return nil
}

// takeRound appends the round's results to unflushed in the order its
// entries were taken.
func (r *run) takeRound() {
	for _, e := range r.roundOrder {
		if res, ok := r.roundRes[e.URL]; ok {
			r.unflushed = append(r.unflushed, res)
		}
	}
	r.roundOrder = r.roundOrder[:0]
	clear(r.roundRes)
}

// flushGuessing hands j to the committer and, while it commits, makes
// the learner's step on the scheduler, guesses the next round from it
// and hands the guess out; the step then goes to the committer, which
// applies it and pops. The committer touches the frontier only after it
// has the step, so the guess reads it alone.
func (r *run) flushGuessing(j *commitJob) error {
	j.learnt = make(chan step, 1)
	var rs []result
	if r.learn != nil {
		rs = learnerCopies(j)
	}
	r.commits <- j
	var st step
	if r.learn != nil && (len(j.pages) > 0 || j.pop > 0) {
		st = r.learn.step(rs, j.pop > 0)
	}
	if j.pop > 0 {
		r.handOutGuess(j, st.moves)
	}
	j.learnt <- st
	return nil
}

// handOutGuess guesses the entries j's pop will take and queues them.
func (r *run) handOutGuess(j *commitJob, moves []Entry) {
	f := r.front
	r.guess.absorb(nil, j.flush)
	r.guess.absorb(j.push, moves)
	for k := range f.topics {
		t := f.topics[(f.next+k)%len(f.topics)]
		n := topicLeft(j.rooms, t, j.pop)
		if n <= 0 {
			continue
		}
		var fallbacks []string
		for _, kind := range f.fallback {
			fallbacks = append(fallbacks, Stack{Topic: t, Kind: kind}.Name())
		}
		es := r.guess.guess(t, fallbacks, n)
		if len(es) == 0 {
			continue
		}
		r.gate = make(chan struct{})
		for _, e := range es {
			jb := job{e: e, url: e.URL, tag: r.newTag(), gate: r.gate}
			r.guessed[e.URL] = jb
			r.pending = append(r.pending, jb)
		}
		return
	}
}

func (r *run) newTag() int64 {
	r.nextTag++
	return r.nextTag
}

// want queues es, taken from the frontier or the outage's retries, as
// entries of the round.
func (r *run) want(es []Entry) {
	r.take(es)
	for _, e := range es {
		jb := job{e: e, url: e.URL, tag: r.newTag()}
		r.wanted[jb.tag] = e
		r.roundOrder = append(r.roundOrder, e)
		r.pending = append(r.pending, jb)
	}
}

// confirm takes the round's pop: a guessed entry the pop took is the
// round's (fetched or in flight), one it took that was not guessed is
// queued, and a guess it did not take is dropped: unsent, discarded when
// back, or discarded now.
func (r *run) confirm(popped []Entry) {
	if r.gate != nil {
		close(r.gate)
		r.gate = nil
	}
	r.take(popped)
	for _, e := range popped {
		jb, ok := r.guessed[e.URL]
		if !ok || jb.e.Topic != e.Topic || jb.e.Depth != e.Depth || jb.e.Score != e.Score {
			jb = job{e: e, url: e.URL, tag: r.newTag()}
			r.pending = append(r.pending, jb)
		} else {
			delete(r.guessed, e.URL)
			r.sum.Guessed++
		}
		r.roundOrder = append(r.roundOrder, e)
		if res, back := r.held[jb.tag]; back {
			delete(r.held, jb.tag)
			r.roundResult(e, res)
		} else {
			r.wanted[jb.tag] = e
		}
	}
	unsent := make(map[int64]bool)
	keep := r.pending[:0]
	for _, jb := range r.pending {
		if _, ok := r.wanted[jb.tag]; ok {
			keep = append(keep, jb)
		} else {
			unsent[jb.tag] = true
		}
	}
	clear(r.pending[len(keep):])
	r.pending = keep
	for _, jb := range r.guessed {
		switch res, back := r.held[jb.tag]; {
		case back:
			delete(r.held, jb.tag)
			r.out.discarded(res.entry.URL)
			r.sum.Discarded++
		case !unsent[jb.tag]:
			r.discarding[jb.tag] = true
		}
	}
	clear(r.guessed)
	r.want(r.dueNext)
	r.dueNext = nil
}

// receiveGuessed takes a result back in a crawl that guesses its rounds.
func (r *run) receiveGuessed(res result) {
	if r.discarding[res.tag] {
		delete(r.discarding, res.tag)
		r.out.discarded(res.entry.URL)
		r.sum.Discarded++
		return
	}
	e, ok := r.wanted[res.tag]
	if !ok {
		r.held[res.tag] = res // a guess its pop has not confirmed yet
		return
	}
	delete(r.wanted, res.tag)
	r.roundResult(e, res)
}

// roundResult keeps res, the result of the round's entry e; the outage
// hears of it (a transient failure is tried again later).
func (r *run) roundResult(e Entry, res result) {
	r.out.received(e, res.retryAt)
	res.entry = e
	if res.canceled {
		r.budget.taken[e.Topic]--
	}
	r.roundRes[e.URL] = res
}

// keptFetches keeps the answers of a guessing crawl's latest fetches
// (every hop, failures included), so that a later fetch of the same URL —
// a discarded guess popped in a later round, or a guess of a URL another
// fetch reached through a redirect — takes the answer, or waits for it,
// instead of asking the server again. It is bounded by count and bytes and
// forgets the oldest first; a URL it forgot is asked again. A fetch
// canceled, or to be tried again later (outage.go), leaves no answer.
// Safe for concurrent use by the workers.
type keptFetches struct {
	mu       sync.Mutex
	m        map[urlnorm.URL]answer
	inFlight map[urlnorm.URL]chan struct{} // fetches asking now: closed when answered
	order    []urlnorm.URL
	bytes    int
}

// answer is what a fetch got.
type answer struct {
	res *fetch.Result
	err error
}

// The bounds of keptFetches.
const (
	keptMax      = 4096
	keptMaxBytes = 32 << 20
)

func newKeptFetches() *keptFetches {
	return &keptFetches{m: make(map[urlnorm.URL]answer), inFlight: make(map[urlnorm.URL]chan struct{})}
}

func (a answer) size() int {
	if a.res == nil {
		return 1024
	}
	return len(a.res.Body) + 1024
}

// ask returns the answer kept for u (with a copy of its result, which
// the caller may change), waiting for a fetch of u that is asking now
// (ok); else it marks u as asked, and the caller must call answered.
func (k *keptFetches) ask(ctx context.Context, u urlnorm.URL) (a answer, ok bool) {
	k.mu.Lock()
	for {
		if a, ok := k.m[u]; ok {
			k.mu.Unlock()
			if a.res != nil {
				cp := *a.res
				a.res = &cp
			}
			return a, true
		}
		ch, ok := k.inFlight[u]
		if !ok {
			break
		}
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return answer{}, false
		}
		k.mu.Lock()
	}
	k.inFlight[u] = make(chan struct{})
	k.mu.Unlock()
	return answer{}, false
}

// answered ends a fetch of u that ask marked, keeping a unless the fetch
// was canceled or is to be tried again.
func (k *keptFetches) answered(ctx context.Context, u urlnorm.URL, a answer) {
	if ctx.Err() == nil && (a.err != nil || a.res != nil) && fetch.ReasonOf(a.err) != fetch.ReasonCanceled {
		k.put(u, a)
	}
	k.mu.Lock()
	if ch, ok := k.inFlight[u]; ok {
		close(ch)
		delete(k.inFlight, u)
	}
	k.mu.Unlock()
}

// put keeps a, the answer for u, with a copy of its result.
func (k *keptFetches) put(u urlnorm.URL, a answer) {
	if a.res != nil {
		cp := *a.res
		a.res = &cp
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if old, ok := k.m[u]; ok {
		k.bytes -= old.size()
	} else {
		k.order = append(k.order, u)
	}
	k.m[u] = a
	k.bytes += a.size()
	for len(k.m) > keptMax || k.bytes > keptMaxBytes {
		old := k.order[0]
		k.order = k.order[1:]
		if a, ok := k.m[old]; ok {
			k.bytes -= a.size()
			delete(k.m, old)
		}
	}
}

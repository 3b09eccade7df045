package crawler

import (
	"context"
	"fmt"
)

// frontier serves a crawl's stacks from the store: round-robin over the
// topics (or the one bfs queue), each from its stack, then, once that
// runs empty, from its fallbacks (reserve, parts). It also owns the
// policies that decide which stack a push lands on: sections and
// promotion (Config.Sections, Config.Promote). Adding a stack policy is
// a type beside sections and promoter and one line in route.
type frontier struct {
	store      Store
	crawl      int64 // set by Run once the store opened the crawl
	topics     []string
	order      Order
	fallback   []Kind // of each topic, in the order they are served
	batch      int    // entries popped at once, at most (popSize)
	maxPerHost int
	beforePop  func() // called before each pop
	empty      map[string]bool
	next       int            // round-robin position
	shared     SharedFrontier // nil unless other processes share the crawl
	guess      *guesser       // a lockstep crawl that guesses its rounds (Config.Speculate)
	deferrer   Deferrer       // the crawl's Learner, when it defers moves
	awaited    int            // waits for them with a topic closed, since a pop last found entries
	closed     bool           // the last take skipped a topic closed by its budget

	secs        *sections
	promo       *promoter
	tunnel      bool // sections divert a promoted link to the parts (else drop it)
	tunnelLinks bool // sections divert a page's link to the parts (else drop it)
}

// newFrontier sets up the frontier of crawler c's configuration.
func newFrontier(c *Crawler) *frontier {
	cfg := c.cfg
	f := &frontier{store: c.store, order: c.order, maxPerHost: cfg.MaxPerHost, beforePop: c.publishNorm,
		empty: make(map[string]bool), tunnel: cfg.Tunnel, tunnelLinks: cfg.Tunnel || cfg.Learner != nil}
	f.shared = cfg.Shared
	f.deferrer, _ = cfg.Learner.(Deferrer)
	if f.shared == nil {
		f.shared, _ = StoreAs[SharedFrontier](c.store)
	}
	if c.order == FIFO {
		f.topics = []string{""}
	} else {
		f.topics = c.topics
	}
	switch {
	case c.order == FIFO && cfg.SiteNorm == nil:
		f.batch = min(fifoAhead*cfg.Workers, 512)
	case c.order == FIFO:
		f.batch = cfg.Workers // entries take the site rules known at their pop
	case cfg.Lockstep:
		f.batch = min(cfg.Workers, 32)
	default:
		f.batch = max(1, min(cfg.Workers, 32)/aheadShare)
	}
	if c.order == FIFO {
		return f
	}
	if cfg.Tunnel {
		f.fallback = append(f.fallback, Reserve)
	}
	if cfg.Sections && f.tunnelLinks {
		f.fallback = append(f.fallback, Parts)
	}
	if cfg.Promote && cfg.Tunnel {
		f.promo = newPromoter(c.topics)
	}
	if cfg.Sections && c.scorer != nil {
		f.secs = newSections(c.topics)
	}
	return f
}

// resume rebuilds, for a resumed crawl, the sections its committed pages
// found, observing them in commit order as the crawl did, and gives each
// page to also in the same pass. A store that cannot read its pages back
// leaves them to be found again.
func (f *frontier) resume(ctx context.Context, also func(*Page)) error {
	pr, ok := StoreAs[PageReader](f.store)
	if !ok {
		return nil
	}
	err := pr.EachPage(ctx, f.crawl, func(p *Page) error {
		if f.secs != nil {
			f.secs.observe(p)
		}
		also(p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("resume crawl: sections: %w", err)
	}
	return nil
}

// stacks lists every stack of the frontier, in serving order: each
// topic's stack followed by its fallbacks.
func (f *frontier) stacks() []Stack {
	var out []Stack
	for _, t := range f.topics {
		out = append(out, Stack{Topic: t})
		for _, k := range f.fallback {
			out = append(out, Stack{Topic: t, Kind: k})
		}
	}
	return out
}

// names are the store keys of stacks.
func names(stacks []Stack) []string {
	out := make([]string, len(stacks))
	for i, s := range stacks {
		out[i] = s.Name()
	}
	return out
}

// spec fills in the stacks of a crawl: all of them, seeds on the topics'.
func (f *frontier) spec(s CrawlSpec) CrawlSpec {
	s.Stacks = names(f.stacks())
	s.SeedStacks = f.topics
	return s
}

// take pops entries for the next topic in turn that has any and whose
// budget is open; left is how many more fetches the crawl's budget
// allows, rooms how many each topic's does (topicLeft). It returns no
// entries when every stack is empty or closed (or ctx ended).
func (f *frontier) take(ctx context.Context, rooms map[string]int, left int) ([]Entry, error) {
	f.closed = false
	for k := 0; k < len(f.topics); k++ {
		t := f.topics[(f.next+k)%len(f.topics)]
		n := topicLeft(rooms, t, left)
		if n <= 0 {
			f.closed = true
			continue
		}
		es, err := f.popTopic(ctx, t, n)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, err
		}
		if len(es) > 0 {
			f.next = (f.next + k + 1) % len(f.topics)
			f.awaited = 0
			return es, nil
		}
	}
	return nil, nil
}

// topicLeft is how many fetches topic's stack may give of the left that
// the crawl's budget allows: no more than its own budget's room (rooms,
// budget.topicRooms), 0 or less when that is spent.
func topicLeft(rooms map[string]int, topic string, left int) int {
	if r, ok := rooms[topic]; ok {
		return min(left, r)
	}
	return left
}

// popTopic takes entries for topic: from its stack, or, when the stack is
// empty, the shallowest entries of its fallbacks, as many as from a stack
// (popSize). Stacks found empty are marked until a push reaches them.
func (f *frontier) popTopic(ctx context.Context, topic string, left int) ([]Entry, error) {
	f.beforePop()
	if !f.empty[topic] {
		es, err := f.pop(ctx, topic, f.order, left)
		if err != nil || len(es) > 0 {
			return es, err
		}
		f.empty[topic] = true
	}
	for _, k := range f.fallback {
		name := Stack{Topic: topic, Kind: k}.Name()
		if f.empty[name] {
			continue
		}
		es, err := f.pop(ctx, name, Shallowest, left)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			f.empty[name] = true
			continue
		}
		for i := range es {
			es[i].Topic = topic // fetched for the topic; counted with it
		}
		return es, nil
	}
	return nil, nil
}

// pop pops entries from the stack named stack in order; for a crawl
// that guesses its rounds, it tells the guesser what it took and saw next.
// While the learner defers moves of a topic's stack (Deferrer), the pop
// stops at the floor, below which the stack's order may not be the one
// every move written would give, has the deferred moves written, and
// pops the rest.
func (f *frontier) pop(ctx context.Context, stack string, order Order, left int) ([]Entry, error) {
	n := f.popSize(left)
	peek := 0
	if f.guess != nil {
		peek = f.guess.peek
	}
	var floor float64
	deferred := false
	if f.deferrer != nil && ParseStack(stack).Kind == Main {
		floor, deferred = f.deferrer.Floor(stack)
	}
	var es, next []Entry
	var err error
	fp, floors := StoreAs[FloorPopper](f.store)
	switch {
	case deferred && floors:
		var stopped bool
		es, next, stopped, err = fp.PopFloor(ctx, f.crawl, stack, order, n, f.maxPerHost, peek, floor)
		if err != nil || !stopped {
			break
		}
		if err = f.writeDeferred(ctx, stack); err != nil {
			break
		}
		var more []Entry
		more, next, err = f.popPeek(ctx, stack, order, n-len(es), peek)
		es = append(es, more...)
	case deferred:
		if err = f.writeDeferred(ctx, stack); err == nil {
			es, next, err = f.popPeek(ctx, stack, order, n, peek)
		}
	default:
		es, next, err = f.popPeek(ctx, stack, order, n, peek)
	}
	if err == nil && f.guess != nil {
		f.guess.popped(stack, es, next)
	}
	return es, err
}

// popPeek pops n entries of stack, and peeks at the next ones when the
// crawl guesses its rounds and the store can peek.
func (f *frontier) popPeek(ctx context.Context, stack string, order Order, n, peek int) ([]Entry, []Entry, error) {
	if pk, ok := StoreAs[Peeker](f.store); ok && f.guess != nil {
		return pk.PopPeek(ctx, f.crawl, stack, order, n, f.maxPerHost, peek)
	}
	es, err := f.store.Pop(ctx, f.crawl, stack, order, n, f.maxPerHost)
	return es, nil, err
}

// writeAllDeferred writes the learner's deferred moves of every topic.
func (f *frontier) writeAllDeferred(ctx context.Context) error {
	if f.deferrer == nil {
		return nil
	}
	for _, t := range f.topics {
		if err := f.writeDeferred(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// writeDeferred writes the learner's deferred moves of stack.
func (f *frontier) writeDeferred(ctx context.Context, stack string) error {
	moves := f.deferrer.Deferred(stack)
	if len(moves) == 0 {
		return nil
	}
	if f.guess != nil {
		f.guess.absorb(nil, moves)
	}
	return f.store.Rescore(ctx, f.crawl, moves)
}

// aheadShare sets how far a focused crawl that is not in lockstep pops
// ahead: a batch of Workers/aheadShare entries from one stack at once.
// A stack's order changes with every commit, so a larger batch serves
// older choices; a smaller one costs a store transaction per few
// fetches.
const aheadShare = 4

// fifoAhead sets how far a bfs crawl pops ahead: batches of fifoAhead ×
// Workers entries (at most 512). The queue's order does not change with
// commits, so a large batch serves the same entries a small one would,
// in fewer store transactions.
const fifoAhead = 16

// popSize is how many entries to take from a stack at once: the
// frontier's batch (a round of a lockstep crawl, a quarter of one for
// per-topic stacks not in lockstep, fifoAhead rounds for the bfs queue),
// never more than the budget allows.
func (f *frontier) popSize(left int) int {
	return max(1, min(f.batch, left))
}

// route returns the entries the committed results push, after the stack
// policies: a link into a section already found goes to the topic's parts
// (or is dropped), and the reserve links of a page whose links proved
// on-topic are promoted to the stack.
func (f *frontier) route(rs []result) []Entry {
	var push []Entry
	for _, r := range rs {
		if r.canceled {
			continue
		}
		rp := r.push
		if f.secs != nil {
			f.secs.observe(r.page)
			rp = f.secs.divert(rp, f.tunnelLinks)
		}
		var promoted []Entry
		if f.promo != nil {
			promoted = f.promo.observe(r.entry, r.page)
			if f.secs != nil {
				promoted = f.secs.divert(promoted, f.tunnel)
			}
		}
		push = append(push, rp...)
		push = append(push, promoted...)
		if f.promo != nil {
			f.promo.remember(r.page.FinalURL, rp)
		}
	}
	return push
}

// pushed marks the stacks that push reached as no longer empty.
func (f *frontier) pushed(push []Entry) {
	for _, e := range push {
		f.empty[e.Topic] = false
	}
}

// await waits, when other processes share the crawl (SharedFrontier),
// for their pushes or the leases of a process that died, and reports
// whether there may be entries to pop again. Work this process's pops do
// not reach (a topic closed by its budget) ends its share after three
// waits; otherwise it waits as long as the others may still push. When
// ctx ends it reports true: the loop then ends as interrupted.
func (f *frontier) await(ctx context.Context) (bool, error) {
	if f.shared == nil || f.closed && f.awaited >= 3 {
		return false, nil
	}
	if f.closed {
		f.awaited++
	}
	more, err := f.shared.AwaitWork(ctx, f.crawl)
	switch {
	case ctx.Err() != nil:
		return true, nil
	case err != nil:
		return false, err
	case more:
		clear(f.empty)
	}
	return more, nil
}

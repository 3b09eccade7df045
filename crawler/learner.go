package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// Learner is a link scorer that learns during the crawl: the crawler asks
// it the value of every link it finds, tells it every page it commits,
// with the page classifier's verdicts, and moves the entries waiting on
// the stacks when it says their values changed. With a Learner every link
// of a fetched page is pushed on every topic's stack with its value, and
// each stack is served best first.
type Learner interface {
	// ScoreLink writes the value of following the link for each topic
	// (Scorer.Topics order) into dst, which it returns. It must be safe
	// for concurrent use, and give the same values for the same link
	// between two calls of Observe.
	ScoreLink(l *LinkFeatures, dst []float64) []float64
	// Observe learns from a page the crawl committed, fetched for entry
	// e, whose links pushed the entries push. The crawler calls it from
	// one goroutine, in commit order.
	Observe(p *Page, e Entry, push []Entry)
	// Rescore returns, once the model has changed enough since the last
	// rescore, the entries waiting on the stacks whose values changed,
	// with their new scores; otherwise nil.
	Rescore() []Entry
	// MarshalState returns the learner's state for the store;
	// RestoreState takes it back when a crawl resumes.
	MarshalState() ([]byte, error)
	RestoreState(state []byte) error
}

// A ModelHolder is a Learner that can hold the models its Rescore
// builds until PublishModels, so that the values ScoreLink gives change
// only when the crawl says (Config.Overlap: between rounds, whatever the
// committer is doing).
type ModelHolder interface {
	HoldModels()
	PublishModels()
}

// A Deferrer is a Learner whose Rescore may leave out moves the next
// pops do not need (deferred moves), as long as the crawl is the one
// every move written at once would make. A stack's entries valued at or
// above its floor hold their values; a pop that would take an entry
// below it first has the topic's deferred moves written (Deferred). A
// push of an entry whose move is deferred first writes that move
// (DeferredOf), since the store keeps the higher of the two values. The
// crawler calls these methods while the learner is idle: from the
// scheduler between two batches, or from the committer once the
// learner's step for its batch is done.
type Deferrer interface {
	// Floor returns the floor of topic's stack while moves of it are
	// deferred; false when none is.
	Floor(topic string) (float64, bool)
	// Deferred returns topic's deferred moves, which the crawler then
	// writes.
	Deferred(topic string) []Entry
	// DeferredOf returns the deferred moves of the entries push pushes,
	// which the crawler writes before the push.
	DeferredOf(push []Entry) []Entry
}

// A Rememberer is a Learner whose state can also hold what it remembers
// of the links it found (their features, so that it can learn from
// their pages and rescore them while they wait), too large to save
// every few hundred pages. The crawler saves MarshalMemory's state when
// a crawl ends (budget, empty frontier, Ctrl-C), after the deferred
// moves are written, and in place of a periodic save once
// Config.LearnerMemoryEvery has passed since the last; RestoreState
// takes either form back. Its values of the remembered links must be
// those the store holds.
type Rememberer interface {
	MarshalMemory() ([]byte, error)
}

// A Primer is a Learner that gathers evidence before a crawl starts
// (learn: the links between the training pages). The crawler calls
// PrimeCrawl when it opens a crawl whose learner has no saved state: a
// new crawl, not a resumed one, which restores what its learner had.
type Primer interface {
	PrimeCrawl(ctx context.Context) error
}

// LinkFeatures is what a Learner sees of one link.
type LinkFeatures struct {
	Source urlnorm.URL // the page the link is on
	Target urlnorm.URL
	Tokens []string // the link's context segment
	Anchor []string // the tokens of its anchor (part of Tokens)
	// Depth is the target's distance in links from a seed.
	Depth int
	// Base is the Scorer's score of the link per topic.
	Base []float64
	// Page is the source page's score per topic.
	Page []float64
}

// The learner's state is saved once learnSaveEvery pages have been
// committed without failure since the last save and learnSaveAfter has
// passed, and when the crawl ends. A state is hundreds of kilobytes (a
// topic's counts and model): saved every 200 pages it took a twentieth
// of a fast crawl's time. A crawl killed at once loses at most that much
// of what its learner learnt; its pages are in the store.
const (
	learnSaveEvery = 200
	learnSaveAfter = 2 * time.Second
)

// learning feeds the crawl's commits to a Learner and applies its
// rescores to the store.
type learning struct {
	l       Learner
	store   Store
	crawl   int64
	unsaved int
	saved   time.Time // the last save (zero: none yet)
	// memEvery is Config.LearnerMemoryEvery; memSaved the last save
	// with the learner's memory (the crawl's start before any).
	memEvery time.Duration
	memSaved time.Time
}

// step is what the learner made of one batch of results: the entries
// its rescore moves and, when a save is due, its state.
type step struct {
	moves  []Entry
	state  []byte
	memory bool // state holds the learner's memory
	err    error
}

// step tells the learner the batch's results (rs) and, with rescore,
// asks for its rescore; it marshals the learner's state when a save is
// due. It touches no store: the committer runs it beside the store's
// commit of the same batch (the learner needs the CPU, the commit
// mostly SQLite's) and applies the step once that commit succeeded.
// The rescore comes before the batch's pop: between two rounds of a
// lockstep crawl, so that the values a round's fetches see do not
// depend on the order in which they finish.
func (lg *learning) step(rs []result, rescore bool) step {
	for _, r := range rs {
		if r.canceled {
			continue
		}
		lg.l.Observe(r.page, r.entry, r.push)
		if r.page.Failure == "" {
			lg.unsaved++ // a failed fetch teaches a learner little
		}
	}
	var st step
	if rescore {
		st.moves = lg.l.Rescore()
	}
	if lg.unsaved >= learnSaveEvery && time.Since(lg.saved) >= learnSaveAfter {
		st.marshal(lg.l, lg.memEvery > 0 && time.Since(lg.memSaved) >= lg.memEvery)
	}
	return st
}

// apply writes a step to the store: the moves, then the state.
func (lg *learning) apply(ctx context.Context, st step) error {
	if st.err != nil {
		return fmt.Errorf("learner state: %w", st.err)
	}
	if len(st.moves) > 0 {
		if err := lg.store.Rescore(ctx, lg.crawl, st.moves); err != nil {
			return err
		}
	}
	if st.state == nil {
		return nil
	}
	lg.unsaved, lg.saved = 0, time.Now()
	if st.memory {
		lg.memSaved = lg.saved
	}
	return lg.store.SaveLearner(ctx, lg.crawl, st.state)
}

// save stores the learner's state when the crawl ends: with its memory
// of the links it found, when it keeps one (Rememberer).
func (lg *learning) save(ctx context.Context) error {
	var st step
	st.marshal(lg.l, true)
	return lg.apply(ctx, st)
}

// marshal sets st's state to l's: with its memory when asked and l
// keeps one (Rememberer).
func (st *step) marshal(l Learner, memory bool) {
	if m, ok := l.(Rememberer); ok && memory {
		st.state, st.err = m.MarshalMemory()
		st.memory = true
		return
	}
	st.state, st.err = l.MarshalState()
}

package crawler

import (
	"context"
	"fmt"

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

// learnSaveEvery is how many pages committed without failure pass
// between two saves of the learner's state.
const learnSaveEvery = 200

// learning feeds the crawl's commits to a Learner and applies its
// rescores to the store.
type learning struct {
	l       Learner
	store   Store
	crawl   int64
	unsaved int
}

// observe tells the learner the committed results and saves its state
// now and then.
func (lg *learning) observe(ctx context.Context, rs []result) error {
	for _, r := range rs {
		if r.canceled {
			continue
		}
		lg.l.Observe(r.page, r.entry, r.push)
		if r.page.Failure == "" {
			lg.unsaved++ // a failed fetch teaches a learner little
		}
	}
	if lg.unsaved >= learnSaveEvery {
		return lg.save(ctx)
	}
	return nil
}

// rescore moves the entries whose values changed, once the learner says
// its model changed enough. The crawl calls it before it pops: between
// two rounds of a lockstep crawl, so that the values a round's fetches
// see do not depend on the order in which they finish.
func (lg *learning) rescore(ctx context.Context) error {
	if ups := lg.l.Rescore(); len(ups) > 0 {
		return lg.store.Rescore(ctx, lg.crawl, ups)
	}
	return nil
}

// save stores the learner's state.
func (lg *learning) save(ctx context.Context) error {
	state, err := lg.l.MarshalState()
	if err != nil {
		return fmt.Errorf("learner state: %w", err)
	}
	lg.unsaved = 0
	return lg.store.SaveLearner(ctx, lg.crawl, state)
}

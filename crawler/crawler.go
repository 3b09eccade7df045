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
	"time"
	"unicode/utf8"

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
	kept    *keptFetches // a crawl that guesses its rounds: the guessed fetches' answers
	scorer  Scorer
	topics  []string
	strat   strategy
	order   Order // of the topics' stacks
	// queueRedirects: a redirect's target goes through the frontier,
	// never fetched in the same fetch (Config.Overlap; bfs always).
	queueRedirects bool
	signer         *minhash.Signer
	known          map[urlnorm.URL]bool
	// seeds are the URLs Run was given, which are fetched whatever
	// Config.Scope says.
	seeds   map[urlnorm.URL]bool
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
	switch {
	case cfg.Strategy == StrategyBFS:
		c.order = FIFO
	case scorer == nil || len(c.topics) == 0:
		return nil, fmt.Errorf("crawler: strategy %s needs a model with at least one topic", cfg.Strategy)
	case (cfg.Frontier == FrontierBestFirst || cfg.Learner != nil) && cfg.Survey:
		c.order = SurveyFirst
	case cfg.Frontier == FrontierBestFirst || cfg.Learner != nil:
		c.order = BestFirst
	default:
		c.order = LIFO
	}
	c.strat = newStrategy(cfg, scorer, c.topics)
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
	// BetweenRounds is, in lockstep, the part of Elapsed spent between
	// rounds with no fetch in flight: the committer's turns (the
	// round's commit, the learner's step and rescore, the next pop).
	BetweenRounds time.Duration
	// Guessed and Discarded count, with Config.Speculate, the entries of
	// the pops that were guessed and fetched ahead, and the guessed
	// fetches no pop took (fetched, never committed).
	Guessed, Discarded int
}

type result struct {
	entry    Entry
	tag      int64       // the job's tag
	url      urlnorm.URL // the job's URL (job.url)
	page     *Page
	push     []Entry
	canceled bool
	// retryAt is the URL whose fetch failed for a transient reason when
	// the entry is to be fetched again later (errRetryLater); zero
	// otherwise.
	retryAt urlnorm.URL
}

// worker turns one entry into a page record and the entries to push.
type worker struct {
	c      *Crawler
	tokens []string
	vals   []float64
	lf     LinkFeatures
	gate   <-chan struct{} // the job's (job.gate)
}

func newWorker(c *Crawler) *worker { return &worker{c: c} }

func (w *worker) process(ctx context.Context, j job) result {
	c, e := w.c, j.e
	p := &Page{URL: e.URL, FinalURL: e.URL, Topic: e.Topic, Depth: e.Depth, FetchedAt: c.cfg.Now()}
	r := result{entry: e, page: p, url: j.url, tag: j.tag}
	defer capFailure(p)
	if j.alias {
		p.RedirectTo = j.url
		p.Failure = "alias: canonical form " + j.url.String() + " fetched already"
		return r
	}
	if j.url != e.URL {
		p.FinalURL, e.URL = j.url, j.url // fetched in its canonical form
	}
	if c.cfg.Scope != nil && !c.seeds[e.URL] { // a seed is fetched whatever the scope
		if err := c.cfg.Scope(e.URL); err != nil {
			p.Failure = "scope: " + err.Error() // waiting since a run with a wider scope
			return r
		}
	}
	w.gate = j.gate
	res, err := w.fetchFollowing(ctx, e, p) // redirect.go
	if res != nil {
		p.Status = res.Status
		if !res.FinalURL.IsZero() {
			p.FinalURL = res.FinalURL
		}
		p.Duration = res.Duration
		p.Exchanges = res.Exchanges
	}
	if err != nil {
		if ctx.Err() != nil || fetch.ReasonOf(err) == fetch.ReasonCanceled {
			r.canceled = true
			var fe *fetch.Error
			if ctx.Err() == nil && errors.Is(err, errRetryLater) && errors.As(err, &fe) {
				r.retryAt = fe.URL
			}
		} else {
			failed(p, err)
		}
		return r
	}
	r.push = w.sitemapEntries(ctx, e, p)
	if !res.Location.IsZero() {
		r.push = append(r.push, c.redirected(e, p, res.Location)...)
		return r
	}
	pg, err := w.read(p, res)
	if err != nil {
		p.Failure = "parse: " + err.Error()
		return r
	}
	scores := w.judge(p, pg.Tokens)
	r.push = c.strat.arrange(w.follow(r.push, e, p, scores, pg.Segments))
	w.measureNorm(ctx, e, p) // sitenorm.go
	if pr, ok := StoreAs[Preparer](c.store); ok {
		pr.Prepare(p)
	}
	return r
}

// maxFailure bounds the text of a page's failure: a reason quoting what
// a hostile server sent (a 100 KB redirect target) is cut.
const maxFailure = 1024

// capFailure cuts p's failure to maxFailure bytes, on a character's
// boundary, marking the cut.
func capFailure(p *Page) {
	if len(p.Failure) <= maxFailure {
		return
	}
	cut := maxFailure
	for cut > 0 && !utf8.RuneStart(p.Failure[cut]) {
		cut--
	}
	p.Failure = p.Failure[:cut] + fmt.Sprintf("… (%d bytes more)", len(p.Failure)-cut)
}

// failed records on p the failure of its fetch, "reason: detail", with
// the status the server answered.
func failed(p *Page, err error) {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		p.Status = fe.Status
		p.Failure = string(fe.Reason) + ": " + errText(fe.Err)
		return
	}
	p.Failure = "fetch: " + err.Error()
}

// read records the fetched body on p and cuts it into segments.
func (w *worker) read(p *Page, res *fetch.Result) (*segment.Page, error) {
	p.Size = len(res.Body)
	p.ContentType = res.ContentType
	p.ETag = res.Header.Get("ETag")
	p.Modified = res.Header.Get("Last-Modified")
	sum := sha256.Sum256(res.Body)
	p.ContentHash = hex.EncodeToString(sum[:])
	pg, err := segment.Split(res.Body, res.ContentType, p.FinalURL, w.c.cfg.Segment)
	if err != nil {
		return nil, err
	}
	p.Title = pg.Title
	p.Text = pg.Text
	p.Signature = w.c.signer.Sign(p.Text)
	return pg, nil
}

// judge scores the page for every topic with the page classifier,
// records the scores and verdicts on p by topic and returns the scores
// in the scorer's order (nil without a scorer).
func (w *worker) judge(p *Page, tokens []string) []float64 {
	sc := w.c.scorer
	if sc == nil {
		return nil
	}
	scores := sc.ScorePage(tokens, nil)
	p.Scores = make(map[string]float64, len(scores))
	p.Relevant = make(map[string]bool, len(scores))
	for i, s := range scores {
		t := w.c.topics[i]
		p.Scores[t], p.Relevant[t] = s, s >= sc.Threshold(i)
	}
	return scores
}

// follow records the page's links on p, scored when the strategy scores
// links, and appends to push what the strategy pushes for those it may
// follow: each target once, with its best score per topic, in reverse
// document order (on a stack the page's first link is popped first).
// scores are the page's, in the scorer's order.
func (w *worker) follow(push []Entry, e Entry, p *Page, scores []float64, segs []segment.Segment) []Entry {
	c := w.c
	depth := e.Depth + 1
	followable := c.cfg.MaxDepth == 0 || depth <= c.cfg.MaxDepth
	var best map[urlnorm.URL][]float64
	var order []urlnorm.URL
	if followable {
		best = make(map[urlnorm.URL][]float64, len(segs))
	}
	p.Links = make([]Link, 0, len(segs))
	for _, s := range segs {
		l := w.link(s)
		p.Links = append(p.Links, l)
		if !followable || !w.followable(p, s.URL) {
			continue
		}
		vals := w.value(e, p, scores, l, s.Anchor)
		b, ok := best[s.URL]
		if !ok {
			best[s.URL] = slices.Clone(vals)
			order = append(order, s.URL)
			continue
		}
		for i, v := range vals {
			b[i] = max(b[i], v)
		}
	}
	for k := len(order) - 1; k >= 0; k-- {
		push = c.strat.push(push, p, order[k], depth, best[order[k]])
	}
	return push
}

// link cuts one segment into a link record, scored by the link model
// when the strategy scores links. w.tokens holds the segment's tokens.
func (w *worker) link(s segment.Segment) Link {
	c := w.c
	l := Link{Target: s.URL, Anchor: strings.Join(s.Anchor, " ")}
	w.tokens = s.Tokens(w.tokens[:0])
	l.Context = strings.Join(w.tokens, " ")
	if c.strat.scoresLinks() {
		if ls, ok := c.scorer.(LinkScorer); ok {
			l.Scores = ls.ScoreLink(s.URL, w.tokens, nil)
		} else {
			l.Scores = c.scorer.Score(w.tokens, nil)
		}
	}
	return l
}

// followable reports whether a link of p to u may be followed.
func (w *worker) followable(p *Page, u urlnorm.URL) bool {
	c := w.c
	return len(u.String()) <= c.cfg.MaxURLLength && u != p.FinalURL && u != p.URL && c.allowed(u) && !c.known[u]
}

// value is what following link l of p (whose scores are pageScores) is
// worth per topic: its score, or the learner's value of it (reusing
// w.vals, valid until the next call).
func (w *worker) value(e Entry, p *Page, pageScores []float64, l Link, anchor []string) []float64 {
	learner := w.c.cfg.Learner
	if learner == nil || !w.c.strat.scoresLinks() {
		return l.Scores
	}
	w.lf = LinkFeatures{Source: p.FinalURL, Depth: e.Depth + 1, Page: pageScores, Target: l.Target, Tokens: w.tokens, Anchor: anchor, Base: l.Scores}
	w.vals = learner.ScoreLink(&w.lf, w.vals[:0])
	return w.vals
}

// allowed reports whether the crawl may follow a link to u: its
// extension is not skipped, and it is in Config.Scope.
func (c *Crawler) allowed(u urlnorm.URL) bool {
	return !c.skipped(u) && (c.cfg.Scope == nil || c.cfg.Scope(u) == nil)
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

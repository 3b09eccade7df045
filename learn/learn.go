package learn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/selection"
	"github.com/scent-crawler/scent/urlnorm"
)

// Defaults of Options' zero fields.
const (
	DefaultK        = 1000
	DefaultM        = 1.0
	DefaultGamma    = 0.5
	DefaultMinDocs  = 8
	DefaultMemory   = 100_000
	DefaultTerms    = 200_000
	DefaultGrowth   = 0.1
	DefaultMinBatch = 16
	DefaultRewardAt = 0.5
)

// Options set a Learner. The zero value of a field means its default.
type Options struct {
	// K is the number of features the link model keeps by χ². Default 1000.
	K int
	// M is the m-estimate's equivalent sample size. Default 1.
	M float64
	// Gamma discounts the credit a link earns for a relevant page found
	// one link beyond its target (a link to a relevant page earns 1; the
	// link two before one earns nothing): a link's value is
	// P(leads) + Gamma·P(leads next). Default 0.5.
	Gamma float64
	// MinDocs is the weight of evidence each class of a topic's link
	// model needs (links that led to relevant pages and links that did
	// not) before the learnt value replaces the base model's score.
	// Default 8.
	MinDocs float64
	// Memory is the most links remembered (their features, to learn from
	// them once their target is fetched and to rescore them while they
	// wait). Default 100,000.
	Memory int
	// Terms bounds the distinct features counted per topic. Default 200,000.
	Terms int
	// Growth: the model is rebuilt and the waiting links rescored once
	// the evidence has grown by this fraction since the last rebuild,
	// and by at least MinBatch pages. Defaults 0.1 and 16 (0.2 and 0.3
	// rescore less often and were measured no better: results/learn).
	Growth   float64
	MinBatch int
	// MinMove, when positive, is the least change of a waiting link's
	// value, as a share of the larger of its old and new values, for
	// which a rescore moves it; 0 moves it for any change. A model
	// rebuilt on a tenth more evidence shifts every value a little: at
	// 0.2 links of nearly equal value keep the order they were pushed in
	// instead of trading places, and the store writes a third of the
	// moves. Measured, not the default: single-topic course and faculty
	// crawls reach their targets sooner, a course+faculty crawl later
	// (results/learn).
	MinMove float64
	// Eager makes Rescore return every move at once, none deferred.
	Eager bool
	// KeepWritten is the number of a topic's best waiting links whose
	// moves a rescore always writes (Rescore); 0: four times the pages
	// to the next rebuild, and at least 256.
	KeepWritten int
	// RewardAt is the page score (the base model's posterior of the
	// topic) at which a fetched page counts as relevant for learning:
	// the most probable class of a page against the background. Default
	// 0.5.
	RewardAt float64
	// Rewards, when set, are per topic (in the order of New's topics)
	// reward thresholds that replace RewardAt; a zero entry keeps it.
	Rewards []float64
	// Prior, when set, gives the links the learner counts before a new
	// crawl (PrimeCrawl: usually TrainingLinks), each with weight
	// PriorWeight (DefaultPrior when 0).
	Prior       func(context.Context) ([]PriorLink, error) `json:"-"`
	PriorWeight float64
	// Canonical, when set, gives the form in which the frontier keeps a
	// link's target (the crawl's site-based normalization,
	// sitenorm.Rules.Canonical): links are remembered under it, so that
	// the page fetched for the entry teaches its link and a rescore moves
	// the entry that waits.
	Canonical func(urlnorm.URL) urlnorm.URL `json:"-"`
}

// Validate reports the first invalid option.
func (o Options) Validate() error {
	switch {
	case o.K < 0, o.MinDocs < 0, o.Memory < 0, o.Terms < 0, o.MinBatch < 0, o.KeepWritten < 0:
		return errors.New("learner options must not be negative")
	case math.IsNaN(o.M) || o.M < 0:
		return errors.New("learner m-estimate must not be negative")
	case math.IsNaN(o.Gamma) || o.Gamma < 0 || o.Gamma >= 1:
		return errors.New("learner discount gamma must be in [0, 1)")
	case math.IsNaN(o.RewardAt) || o.RewardAt < 0 || o.RewardAt > 1:
		return errors.New("learner reward threshold must be in [0, 1]")
	case slices.ContainsFunc(o.Rewards, func(v float64) bool { return math.IsNaN(v) || v < 0 || v > 1 }):
		return errors.New("learner reward thresholds must be in [0, 1]")
	case !(o.PriorWeight >= 0 && o.PriorWeight <= MaxPriorWeight):
		return fmt.Errorf("learner prior weight must be from 0 to %g", float64(MaxPriorWeight))
	case math.IsNaN(o.MinMove) || o.MinMove < 0 || o.MinMove >= 1:
		return errors.New("learner least move must be in [0, 1)")
	case math.IsNaN(o.Growth) || o.Growth < 0:
		return errors.New("learner growth must not be negative")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.M == 0 {
		o.M = DefaultM
	}
	if o.Gamma == 0 {
		o.Gamma = DefaultGamma
	}
	if o.MinDocs == 0 {
		o.MinDocs = DefaultMinDocs
	}
	if o.Memory == 0 {
		o.Memory = DefaultMemory
	}
	if o.Terms == 0 {
		o.Terms = DefaultTerms
	}
	if o.Growth == 0 {
		o.Growth = DefaultGrowth
	}
	if o.MinBatch == 0 {
		o.MinBatch = DefaultMinBatch
	}
	if o.RewardAt == 0 {
		o.RewardAt = DefaultRewardAt
	}
	if o.PriorWeight == 0 {
		o.PriorWeight = DefaultPrior
	}
	return o
}

// The classes of a topic's link model (the layers of a context graph):
// links whose target was relevant, links whose target led on to relevant
// pages, and the others.
const (
	classLeads = 0
	classNext  = 1
	classNot   = 2
)

// linkClasses names the classes, in that order.
var linkClasses = []string{"leads", "leads-next", "not"}

// Learner implements crawler.Learner. Its methods other than ScoreLink
// are called from one goroutine.
type Learner struct {
	topics []string
	opts   Options
	counts []*classify.Counts // per topic
	models atomic.Pointer[[]*classify.Model]
	// held: the models build makes wait in next until PublishModels
	// (crawler.ModelHolder).
	held bool
	next *[]*classify.Model

	links     map[urlnorm.URL]*record // by target URL (and a fetched page's final URL)
	ring      []*record               // the links in the order remembered, for eviction
	ringNext  int
	sources   map[urlnorm.URL]*siblings // fetched pages' outcomes by the page linking to them, while its links are remembered
	seen      int                       // fetches observed, failed ones included
	built     int                       // fetches observed at the last rebuild
	feats     []string
	words     vocabulary // the features of the remembered links, by number
	proj      [][2]projection
	compacted int // twice the vocabulary's size after its last compaction
	// vocabularyMax is the features numbered past which it renumbers
	// (the package's vocabularyMax; smaller in a test).
	vocabularyMax int
	terms         []int32 // value's document, as positions in a model's terms

	// Deferred moves (Rescore): per topic the floor and the links whose
	// move is deferred; the deferred moves of links forgotten since.
	floors  []float64
	lagging []int
	orphans map[topicURL]float64
	recs    []*record // Rescore's waiting links
	vals    []float64
}

// vocabulary numbers the features of the remembered links: a record
// keeps its features as numbers, and a rescore, which values every
// waiting link with each new model, looks each number up in a table
// (projection) instead of hashing each word for every model.
type vocabulary struct {
	id    map[string]uint32
	words []string
}

// number appends the numbers of features to dst, numbering the new ones.
func (v *vocabulary) number(dst []uint32, features []string) []uint32 {
	for _, f := range features {
		id, ok := v.id[f]
		if !ok {
			id = uint32(len(v.words))
			v.id[f] = id
			v.words = append(v.words, f)
		}
		dst = append(dst, id)
	}
	return dst
}

// spell appends the features numbered ids to dst.
func (v *vocabulary) spell(dst []string, ids []uint32) []string {
	for _, id := range ids {
		dst = append(dst, v.words[id])
	}
	return dst
}

// vocabularyMax bounds the features numbered: past it the vocabulary is
// renumbered from the records still remembered (Learner.compact).
const vocabularyMax = 1 << 18

// projection maps a vocabulary's numbers to the positions of one
// model's terms (-1: not a term of the model).
type projection struct {
	m   *classify.Model
	pos []int32
}

// siblings counts, for one page, the pages fetched through its links and
// how many of them were relevant to each topic.
type siblings struct {
	fetched  int
	relevant []int
	refs     int // the page's links remembered (records whose source it is)
}

// record is one remembered link. A learner holds up to Options.Memory
// of them for the whole crawl, so a record is kept small: its numbers
// per topic are one allocation (topics), and the features it was taught
// with are spelled again from its own when needed (taughtFeatures).
type record struct {
	source urlnorm.URL
	target urlnorm.URL // the URL it was remembered under
	final  urlnorm.URL // the final URL of its page, when a redirect led there: remembered under it too
	shared []uint32    // features every topic's model sees, numbered (Learner.words)
	topics []linkTopic // per topic
	depth  int32       // its target's distance in links from a seed
	// counted: its target was fetched and judged.
	counted bool
	// waiting: its target waits on a topic's own stack (a rescore moves it).
	waiting bool
}

// linkTopic is a remembered link's state for one topic.
type linkTopic struct {
	base   float64 // the base model's score
	score  float64 // the value last given to the stack
	credit float64 // weight counted as leading to relevant pages
	// A deferred move (Rescore): lag is set while the store holds
	// stored instead of score.
	stored float64
	lag    bool
	// pushed: pushed again since its value was last written, so the
	// store holds the higher of that value and the push's; its moves
	// are not deferred until one is written.
	pushed bool
	srcRel bool // the source page's relevance
	// taught: once counted, what its features said of its siblings
	// when it was (the rest of the features it was counted with are
	// its shared ones and those of base and srcRel).
	taught siblingsClass
}

// newRecord returns a record of a link from source to target at depth,
// with a zero state for each of topics topics.
func newRecord(source, target urlnorm.URL, depth, topics int) *record {
	return &record{source: source, target: target, depth: int32(depth), topics: make([]linkTopic, topics)}
}

// New returns a learner for topics (the crawl scorer's Topics order).
func New(topics []string, opts Options) (*Learner, error) {
	if len(topics) == 0 {
		return nil, errors.New("learner: no topic")
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("learner: %w", err)
	}
	opts = opts.withDefaults()
	l := &Learner{topics: append([]string(nil), topics...), opts: opts, links: make(map[urlnorm.URL]*record), sources: make(map[urlnorm.URL]*siblings),
		words: vocabulary{id: make(map[string]uint32)}, proj: make([][2]projection, len(topics)), vocabularyMax: vocabularyMax,
		floors: make([]float64, len(topics)), lagging: make([]int, len(topics)), orphans: make(map[topicURL]float64)}
	for range topics {
		c, err := classify.NewCounts(linkClasses, opts.Terms)
		if err != nil {
			return nil, err
		}
		l.counts = append(l.counts, c)
	}
	models := make([]*classify.Model, len(topics))
	l.models.Store(&models)
	return l, nil
}

var _ crawler.Learner = (*Learner)(nil)

// Features returns the features of a link for topic t's model: the words
// of its context, the words of its anchor (as "anchor:" features), the
// words of its target's path, whether it leaves its page's host, its depth, the base model's score
// (in fifths), whether its page was relevant to t (scored at least
// rewardAt) and how many of the pages fetched through its page's links
// were (unknown for a new link).
func Features(dst []string, l *crawler.LinkFeatures, t int, rewardAt float64) []string {
	dst = sharedFeatures(dst, l.Source, l.Target, l.Tokens, l.Anchor, l.Depth)
	var base float64
	if t < len(l.Base) {
		base = l.Base[t]
	}
	return topicFeatures(dst, base, t < len(l.Page) && l.Page[t] >= rewardAt, siblingsUnknown)
}

func sharedFeatures(dst []string, source, target urlnorm.URL, tokens, anchor []string, depth int) []string {
	dst = append(dst, tokens...)
	for _, w := range anchor {
		dst = append(dst, "anchor:"+w)
	}
	path := strings.ToLower(target.Path())
	for _, w := range strings.FieldsFunc(path, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		dst = append(dst, "url:"+w)
	}
	if strings.Contains(path, "~") {
		dst = append(dst, "url:~")
	}
	if strings.HasSuffix(path, "/") {
		dst = append(dst, "url:/$")
	}
	if target.Host() == source.Host() {
		dst = append(dst, "link:same-host")
	} else {
		dst = append(dst, "link:other-host")
	}
	if depth < 0 {
		return dst // unknown: a link of the training pages (Prime)
	}
	return append(dst, "depth:"+strconv.Itoa(min(depth, 8)))
}

// baseFeatures are the base model's score in fifths, as features.
var baseFeatures = [5]string{"base:0", "base:1", "base:2", "base:3", "base:4"}

// siblingsClass is what a link's features say of the pages fetched
// through its page's links for one topic (siblingFeatures).
type siblingsClass uint8

const (
	siblingsUnknown siblingsClass = iota // none fetched yet
	siblingsNone                         // none relevant
	siblingsSome                         // fewer than half relevant
	siblingsMost                         // at least half relevant
)

// siblingFeatures are the features of the siblingsClass values.
var siblingFeatures = [...]string{"siblings:unknown", "siblings:none-relevant", "siblings:some-relevant", "siblings:most-relevant"}

func topicFeatures(dst []string, base float64, rel bool, sib siblingsClass) []string {
	dst = append(dst, baseFeatures[max(0, min(int(base*5), 4))])
	if rel {
		dst = append(dst, "source:relevant")
	} else {
		dst = append(dst, "source:not-relevant")
	}
	return append(dst, siblingFeatures[sib])
}

// class returns what the outcomes say for topic t (sib may be nil: no
// page fetched).
func (sib *siblings) class(t int) siblingsClass {
	switch {
	case sib == nil || sib.fetched == 0:
		return siblingsUnknown
	case sib.relevant[t] == 0:
		return siblingsNone
	case 2*sib.relevant[t] < sib.fetched:
		return siblingsSome
	}
	return siblingsMost
}

// taughtFeatures appends to dst the features r was counted with for
// topic t (r.counted).
func (l *Learner) taughtFeatures(dst []string, r *record, t int) []string {
	rt := &r.topics[t]
	return topicFeatures(l.words.spell(dst, r.shared), rt.base, rt.srcRel, rt.taught)
}

// ScoreLink implements crawler.Learner: per topic, P(leads to relevant
// pages | features) under the topic's link model, or the base score while
// the model has too little evidence.
func (l *Learner) ScoreLink(lf *crawler.LinkFeatures, dst []float64) []float64 {
	models := *l.models.Load()
	dst = dst[:0]
	var feats []string
	var post [3]float64
	for t := range l.topics {
		m := models[t]
		if m == nil {
			v := 0.0
			if t < len(lf.Base) {
				v = lf.Base[t]
			}
			dst = append(dst, v)
			continue
		}
		feats = Features(feats[:0], lf, t, l.rewardAt(t)) // a new link: no sibling fetched yet
		p := m.Posterior(feats, post[:0])
		dst = append(dst, p[classLeads]+l.opts.Gamma*p[classNext])
	}
	return dst
}

// value scores a remembered link for topic t with models.
func (l *Learner) value(models []*classify.Model, r *record, t int) float64 {
	m := models[t]
	rt := &r.topics[t]
	if m == nil {
		return rt.base
	}
	pos := l.projection(t, m)
	l.terms = l.terms[:0]
	for _, id := range r.shared {
		l.terms = append(l.terms, pos[id])
	}
	l.feats = topicFeatures(l.feats[:0], rt.base, rt.srcRel, l.sources[r.source].class(t))
	for _, f := range l.feats {
		l.terms = append(l.terms, m.TermIndex(f))
	}
	var post [3]float64
	p := m.PosteriorOfTerms(l.terms, post[:0])
	return p[classLeads] + l.opts.Gamma*p[classNext]
}

// projection returns the positions of the vocabulary's features among
// the terms of m, topic t's model, kept for the topic's last two models
// (the one in use and, while the crawl holds it, the one built).
func (l *Learner) projection(t int, m *classify.Model) []int32 {
	ps := &l.proj[t]
	if ps[0].m != m {
		if ps[1].m == m {
			ps[0], ps[1] = ps[1], ps[0]
		} else {
			ps[1] = ps[0]
			pos := make([]int32, len(l.words.words), len(l.words.words)+len(l.words.words)/4)
			for i := range pos {
				pos[i] = -1
			}
			for k := range m.NumTerms() {
				if id, ok := l.words.id[m.Term(k)]; ok {
					pos[id] = int32(k)
				}
			}
			ps[0] = projection{m: m, pos: pos}
		}
	}
	p := &ps[0]
	for id := len(p.pos); id < len(l.words.words); id++ { // numbered since
		p.pos = append(p.pos, m.TermIndex(l.words.words[id]))
	}
	return p.pos
}

// Observe implements crawler.Learner. The link that led to the page is
// counted as leading to relevant pages for each topic the page is
// relevant to, and as not leading for the others; for a relevant page,
// the link before it moves to the class that leads on, worth Gamma
// (discounted future reward). Failed fetches teach nothing (counting them
// as leading nowhere fetches fewer dead links but was measured worse on
// course and faculty). The page's pushed links are remembered.
func (l *Learner) Observe(p *crawler.Page, e crawler.Entry, push []crawler.Entry) {
	l.seen++
	r := l.links[e.URL]
	if r != nil {
		r.waiting = false
		l.settle(r) // its entry left the stack
		if p.FinalURL != e.URL && p.Failure == "" {
			if o := l.links[p.FinalURL]; o != nil && o != r {
				// A link to the final URL was remembered too: its entry
				// left the stack with this fetch (the store takes the
				// final URL off the frontier), and the link that led
				// here stands for the page from now on.
				o.waiting = false
				l.settle(o)
			}
			l.links[p.FinalURL] = r // the page's record under its final URL too
			r.final = p.FinalURL
		}
	}
	if p.Failure == "" && r != nil && !r.counted {
		r.counted = true
		sib := l.sources[r.source]
		for t := range l.topics {
			rel := l.rewarded(p, t)
			w := 0.0
			if rel {
				w = 1
			}
			r.topics[t].taught = sib.class(t)
			l.feats = l.taughtFeatures(l.feats[:0], r, t)
			l.counts[t].Add(classLeads, l.feats, w)
			l.counts[t].Add(classNot, l.feats, 1-w)
			r.topics[t].credit = w
			if rel {
				l.creditAncestors(r, t)
			}
		}
		if sib == nil {
			sib = l.sibling(r.source)
		}
		sib.fetched++
		for t := range l.topics {
			if l.rewarded(p, t) {
				sib.relevant[t]++
			}
		}
	}
	if p.Failure != "" || len(push) == 0 {
		return
	}
	l.remember(p, e, push)
}

// sibling returns the outcomes of the pages fetched through the links
// of the page at source, adding them when there are none yet. They are
// kept while a link of the page is remembered.
func (l *Learner) sibling(source urlnorm.URL) *siblings {
	sib := l.sources[source]
	if sib == nil {
		sib = &siblings{relevant: make([]int, len(l.topics))}
		l.sources[source] = sib
	}
	return sib
}

// rewarded reports whether page p counts as relevant to topic t.
func (l *Learner) rewarded(p *crawler.Page, t int) bool {
	if p.Failure != "" {
		return false
	}
	s, ok := p.Scores[l.topics[t]]
	return ok && s >= l.rewardAt(t)
}

// rewardAt is topic t's reward threshold.
func (l *Learner) rewardAt(t int) float64 {
	if t < len(l.opts.Rewards) && l.opts.Rewards[t] > 0 {
		return l.opts.Rewards[t]
	}
	return l.opts.RewardAt
}

// creditAncestors moves the link before r, counted as leading nowhere,
// to the links that lead on to pages relevant to topic t.
func (l *Learner) creditAncestors(r *record, t int) {
	a := l.links[r.source]
	if a == nil || a == r || !a.counted || a.topics[t].credit > 0 {
		return
	}
	l.counts[t].Move(classNot, classNext, l.taughtFeatures(nil, a, t), 1)
	a.topics[t].credit = l.opts.Gamma
}

// remember keeps the features of the links p pushed, under their targets
// in the form the frontier keeps them (Options.Canonical).
func (l *Learner) remember(p *crawler.Page, e crawler.Entry, push []crawler.Entry) {
	// want: the targets pushed, true for those pushed on a topic's own
	// stack, the one a rescore moves (a fallback's entries, the parts of
	// a compound document, wait unmoved; their links are still learnt
	// from once fetched).
	want := make(map[urlnorm.URL]bool, len(push))
	// mains: the pushes onto the topics' own stacks, with their values
	// (NaN: pushed more than once), for the deferred moves (Rescore).
	mains := make(map[topicURL]float64, len(push))
	for _, pe := range push {
		want[pe.URL] = want[pe.URL] || crawler.ParseStack(pe.Topic).Kind == crawler.Main
		if t := slices.Index(l.topics, pe.Topic); t >= 0 {
			k := topicURL{t, pe.URL}
			if _, twice := mains[k]; twice {
				mains[k] = math.NaN()
			} else {
				mains[k] = pe.Score
			}
		}
	}
	for i := range p.Links {
		lk := &p.Links[i]
		onStack, ok := want[lk.Target]
		if !ok {
			continue
		}
		delete(want, lk.Target) // the first link to a target stands for it
		target := lk.Target
		if l.opts.Canonical != nil {
			target = l.opts.Canonical(target)
		}
		if old := l.links[target]; old != nil {
			if !old.counted && onStack {
				old.waiting = true
			}
			for t := range l.topics {
				if _, ok := mains[topicURL{t, lk.Target}]; ok {
					old.topics[t].pushed = true // pushed again by this batch
					old.depth = min(old.depth, int32(e.Depth+1))
				}
			}
			continue
		}
		r := newRecord(p.FinalURL, target, e.Depth+1, len(l.topics))
		r.waiting = onStack
		l.sibling(p.FinalURL).refs++
		for t := range r.topics {
			if t < len(lk.Scores) {
				r.topics[t].base = lk.Scores[t]
			}
			r.topics[t].srcRel = l.rewarded(p, t)
		}
		l.feats = sharedFeatures(l.feats[:0], p.FinalURL, lk.Target, strings.Fields(lk.Context), strings.Fields(lk.Anchor), e.Depth+1)
		r.shared = l.words.number(nil, l.feats)
		models := *l.models.Load()
		for t := range l.topics {
			rt := &r.topics[t]
			rt.score = l.value(models, r, t)
			// The store holds the push's value: the best of the page's
			// links to the target, not the first one's as here.
			if v, ok := mains[topicURL{t, lk.Target}]; ok && v != rt.score {
				rt.pushed = true
			}
		}
		l.keep(r)
	}
	l.compact()
}

// compact numbers anew the features of the records still remembered,
// once the vocabulary has grown past vocabularyMax (the features of
// forgotten links are forgotten with them).
func (l *Learner) compact() {
	if len(l.words.words) <= max(l.vocabularyMax, l.compacted) {
		return
	}
	v := vocabulary{id: make(map[string]uint32)}
	var buf []string
	done := make(map[*record]bool, len(l.links))
	for _, r := range l.links {
		if done[r] {
			continue // remembered under its final URL too
		}
		done[r] = true
		buf = l.words.spell(buf[:0], r.shared)
		r.shared = v.number(r.shared[:0], buf)
	}
	l.words = v
	l.compacted = 2 * len(v.words) // what is remembered may need more
	clear(l.proj)
}

// keep remembers r, forgetting the oldest record beyond Memory.
func (l *Learner) keep(r *record) {
	if len(l.ring) < l.opts.Memory {
		l.ring = append(l.ring, r)
	} else {
		o := l.ring[l.ringNext]
		for t, ot := range o.topics {
			if ot.lag && o.waiting {
				l.orphans[topicURL{t, o.target}] = ot.score // written at the next chance
			}
		}
		l.settle(o)
		for _, u := range []urlnorm.URL{o.target, o.final} {
			if l.links[u] == o {
				delete(l.links, u)
			}
		}
		if sib := l.sources[o.source]; sib != nil {
			if sib.refs--; sib.refs <= 0 {
				delete(l.sources, o.source) // no link of its page is remembered
			}
		}
		l.ring[l.ringNext] = r
		l.ringNext = (l.ringNext + 1) % len(l.ring)
	}
	l.links[r.target] = r
}

// Rescore implements crawler.Learner: once the pages observed have grown
// by Growth (and MinBatch) since the last rebuild, it rebuilds every
// topic's link model from its counts and returns the waiting links whose
// value changed (by more than MinMove, a share of the value, when set)
// since it was last given to the stack.
//
// Unless Options.Eager, it returns only the moves the next pops can
// need and defers the others (crawler.Deferrer): per topic, a floor is
// set at the K-th best value of the waiting links (K: KeepWritten, by
// default four times the pages to the next rebuild and at least 256),
// and a move is deferred
// when both the value in the store and the new one are below it. The
// stack's entries at or above the floor then hold their values, and no
// entry whose value is at or above it is left behind; a pop that
// reaches the floor has the deferred moves written first (Deferred).
// The survey's links (crawler.SurveyDepth) and links pushed again since
// their last write are never deferred.
func (l *Learner) Rescore() []crawler.Entry {
	if l.seen-l.built < max(l.opts.MinBatch, int(l.opts.Growth*float64(l.built))) {
		return nil
	}
	l.built = l.seen
	models := l.build()

	out := l.takeOrphans(-1, nil)
	l.recs = l.recs[:0]
	for u, r := range l.links {
		if r.waiting && r.target == u {
			l.recs = append(l.recs, r)
		}
	}
	k := l.opts.KeepWritten
	if k == 0 {
		k = max(minKeepWritten, 4*max(l.opts.MinBatch, int(l.opts.Growth*float64(l.built))))
	}
	for t, topic := range l.topics {
		l.vals = l.vals[:0]
		for _, r := range l.recs {
			l.vals = append(l.vals, l.value(models, r, t))
		}
		floor := math.Inf(-1)
		if !l.opts.Eager && len(l.vals) > k {
			floor = selection.KthLargest(slices.Clone(l.vals), k)
		}
		l.floors[t] = floor
		for i, r := range l.recs {
			v := l.vals[i]
			rt := &r.topics[t]
			moved := math.Abs(v-rt.score) > max(1e-9, l.opts.MinMove*max(v, rt.score))
			if !moved && !rt.lag {
				continue
			}
			stored := rt.score
			if rt.lag {
				stored = rt.stored
			}
			if moved {
				rt.score = v
			}
			if rt.pushed && !moved {
				continue // the store keeps the push's value, as when every move is written
			}
			if rt.pushed || r.depth <= crawler.SurveyDepth || max(stored, rt.score) >= floor {
				l.settleTopic(r, t)
				rt.pushed = false
				out = append(out, crawler.Entry{Topic: topic, URL: r.target, Score: rt.score})
				continue
			}
			if !rt.lag {
				rt.lag, rt.stored = true, stored
				l.lagging[t]++
			}
		}
	}
	return out
}

// minKeepWritten is the least number of a topic's best waiting links
// whose moves a rescore writes by default (Options.KeepWritten).
const minKeepWritten = 256

// topicURL is an entry of topic t's own stack: a key of Learner.orphans
// (the deferred moves of links forgotten before they were written) and
// of the pushes remember counts.
type topicURL struct {
	t   int
	url urlnorm.URL
}

// takeOrphans appends to dst, and forgets, the deferred moves of
// forgotten links of topic t (of every topic when t < 0).
func (l *Learner) takeOrphans(t int, dst []crawler.Entry) []crawler.Entry {
	for o, v := range l.orphans {
		if t < 0 || o.t == t {
			dst = append(dst, crawler.Entry{Topic: l.topics[o.t], URL: o.url, Score: v})
			delete(l.orphans, o)
		}
	}
	return dst
}

// settleTopic notes r's value for topic t as written.
func (l *Learner) settleTopic(r *record, t int) {
	if rt := &r.topics[t]; rt.lag {
		rt.lag = false
		l.lagging[t]--
	}
}

// settle notes all of r's values as written (or its entry gone).
func (l *Learner) settle(r *record) {
	for t := range r.topics {
		l.settleTopic(r, t)
	}
}

var _ crawler.Deferrer = (*Learner)(nil)

// Floor implements crawler.Deferrer: while moves of topic's links are
// deferred, the value at or above which the stack's entries hold their
// values.
func (l *Learner) Floor(topic string) (float64, bool) {
	t := slices.Index(l.topics, topic)
	if t < 0 || l.lagging[t] == 0 && !l.hasOrphans(t) {
		return 0, false
	}
	return l.floors[t], true
}

func (l *Learner) hasOrphans(t int) bool {
	for o := range l.orphans {
		if o.t == t {
			return true
		}
	}
	return false
}

// Deferred implements crawler.Deferrer: the deferred moves of topic's
// links, now to be written.
func (l *Learner) Deferred(topic string) []crawler.Entry {
	t := slices.Index(l.topics, topic)
	if t < 0 {
		return nil
	}
	out := l.takeOrphans(t, nil)
	if l.lagging[t] == 0 {
		return out
	}
	for u, r := range l.links {
		if r.target == u && r.topics[t].lag {
			l.settleTopic(r, t)
			out = append(out, crawler.Entry{Topic: topic, URL: u, Score: r.topics[t].score})
		}
	}
	return out
}

// DeferredOf implements crawler.Deferrer: the deferred moves of the
// links push pushes again, to be written before the push (the store
// keeps the higher of an entry's value and a push's); the links are
// noted as pushed again.
func (l *Learner) DeferredOf(push []crawler.Entry) []crawler.Entry {
	var out []crawler.Entry
	for _, e := range push {
		t := slices.Index(l.topics, e.Topic)
		if t < 0 {
			continue // not a topic's own stack
		}
		if v, ok := l.orphans[topicURL{t, e.URL}]; ok {
			delete(l.orphans, topicURL{t, e.URL})
			out = append(out, crawler.Entry{Topic: e.Topic, URL: e.URL, Score: v})
		}
		r := l.links[e.URL]
		if r == nil || r.target != e.URL {
			continue
		}
		r.topics[t].pushed = true
		r.depth = min(r.depth, int32(e.Depth)) // the store keeps the smaller depth
		if r.topics[t].lag {
			l.settleTopic(r, t)
			out = append(out, crawler.Entry{Topic: e.Topic, URL: e.URL, Score: r.topics[t].score})
		}
	}
	return out
}

// build makes each topic's model from its counts (nil while the evidence
// is short) and publishes them.
func (l *Learner) build() []*classify.Model {
	models := make([]*classify.Model, len(l.topics))
	for t, c := range l.counts {
		if c.Docs(classLeads)+c.Docs(classNext) < l.opts.MinDocs || c.Docs(classNot) < l.opts.MinDocs {
			continue
		}
		m, err := c.Model(classify.Options{K: l.opts.K, M: l.opts.M})
		if err != nil {
			continue // not enough evidence yet
		}
		models[t] = m
	}
	if l.held {
		l.next = &models
	} else {
		l.models.Store(&models)
	}
	return models
}

// HoldModels implements crawler.ModelHolder: the models a rescore builds
// are used by ScoreLink only after PublishModels.
func (l *Learner) HoldModels() { l.held = true }

// PublishModels implements crawler.ModelHolder.
func (l *Learner) PublishModels() {
	if l.next != nil {
		l.models.Store(l.next)
		l.next = nil
	}
}

var _ crawler.ModelHolder = (*Learner)(nil)

// Model returns topic t's current link model, or nil while it has too
// little evidence.
func (l *Learner) Model(t int) *classify.Model { return (*l.models.Load())[t] }

// Counts returns topic t's evidence.
func (l *Learner) Counts(t int) *classify.Counts { return l.counts[t] }

// state is the saved form of a Learner.
type state struct {
	Format string             `json:"format"`
	Topics []string           `json:"topics"`
	Seen   int                `json:"seen"`
	Built  int                `json:"built"`
	Counts []*classify.Counts `json:"counts"`
	// Models are the link models in use (classify model files), null
	// for a topic still scored by the base model.
	Models []json.RawMessage `json:"models"`
	// Rewards are the page scores at which the learner counts a page as
	// relevant, per topic: a resumed crawl learns at those it started
	// with (chosen by cross-validation when its model was trained, which
	// a resume does not do again).
	Rewards []float64 `json:"rewards,omitempty"`
}

const stateFormat = "scent-learner/1"

// MarshalState implements crawler.Learner: the topics' counts and the
// models in use, so that a resumed crawl scores as the stopped one did
// and rebuilds its models when it would have. The remembered links are
// kept by MarshalMemory, which a crawl saves when it ends and once a
// minute while it runs.
func (l *Learner) MarshalState() ([]byte, error) {
	s, err := l.state()
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// state returns l's state.
func (l *Learner) state() (*state, error) {
	s := &state{Format: stateFormat, Topics: l.topics, Seen: l.seen, Built: l.built, Counts: l.counts}
	for t := range l.topics {
		s.Rewards = append(s.Rewards, l.rewardAt(t))
	}
	for _, m := range *l.models.Load() {
		if m == nil {
			s.Models = append(s.Models, json.RawMessage("null"))
			continue
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			return nil, err
		}
		s.Models = append(s.Models, bytes.TrimSpace(b.Bytes()))
	}
	return s, nil
}

// RestoreState implements crawler.Learner: a state of MarshalState, or
// of MarshalMemory (the state, a newline, the memory).
func (l *Learner) RestoreState(data []byte) error {
	var mem []byte
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data, mem = data[:i], data[i+1:]
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("learner state: %w", err)
	}
	if s.Format != stateFormat {
		return fmt.Errorf("learner state: format %q, want %q", s.Format, stateFormat)
	}
	if strings.Join(s.Topics, ",") != strings.Join(l.topics, ",") || len(s.Counts) != len(l.topics) || len(s.Models) != len(l.topics) {
		return fmt.Errorf("learner state: topics %v, want %v", s.Topics, l.topics)
	}
	for t, c := range s.Counts {
		if c == nil || !slices.Equal(c.Classes(), linkClasses) {
			return fmt.Errorf("learner state: counts of %s missing or not over the classes %v", l.topics[t], linkClasses)
		}
	}
	models := make([]*classify.Model, len(l.topics))
	for t, raw := range s.Models {
		if string(raw) == "null" {
			continue
		}
		m, err := classify.Load(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("learner state: model of %s: %w", l.topics[t], err)
		}
		if !slices.Equal(m.Classes(), linkClasses) {
			return fmt.Errorf("learner state: model of %s has classes %v, want %v", l.topics[t], m.Classes(), linkClasses)
		}
		models[t] = m
	}
	if s.Rewards != nil {
		if len(s.Rewards) != len(l.topics) || slices.ContainsFunc(s.Rewards, func(v float64) bool { return !(v >= 0 && v <= 1) }) {
			return fmt.Errorf("learner state: reward thresholds %v", s.Rewards)
		}
	}
	if mem != nil {
		if err := l.restoreMemory(mem); err != nil {
			return fmt.Errorf("learner state: memory: %w", err)
		}
	}
	l.counts, l.seen, l.built = s.Counts, s.Seen, s.Built
	if s.Rewards != nil {
		l.opts.Rewards = s.Rewards
	}
	l.models.Store(&models)
	return nil
}

package training

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// Fetcher downloads example pages; *fetch.Fetcher implements it.
type Fetcher interface {
	Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*fetch.Result, error)
}

// Options set how a model is built. Zero values mean the defaults.
type Options struct {
	Classify classify.Options
	Segment  segment.Options
	// Folds of the cross-validation; default 5, 0 or 1 after defaults
	// would mean none, so use -1 to skip it.
	Folds int
	// Parallel fetches; default 8.
	Parallel int
	// Seed of the fold assignment.
	Seed int64
	// MaxFileBytes bounds local example files; default 10 MiB.
	MaxFileBytes int64
	// Progress, when set, receives one line per fetched example.
	Progress io.Writer
	// Documents is what a training document is; default DocWindows.
	Documents Documents
	// Backlinks are links to the examples (e.g. from a backlinks file);
	// the segment of each becomes a training document of the example's
	// class (the paper's backlink features).
	Backlinks []Backlink
	// BacklinkSource, when set, is asked for more backlinks of the
	// examples, e.g. the link table of earlier crawls.
	BacklinkSource BacklinkSource
	// MaxBacklinks bounds the backlinks taken from BacklinkSource; 0
	// means 10,000.
	MaxBacklinks int
	// CVThresholds are more thresholds, each applied to every topic, at
	// which the cross-validation is also counted (Report.ByThreshold):
	// one model then serves crawls at several thresholds.
	CVThresholds []float64
	// AutoAbsentDiscount sets Classify.AbsentDiscount to the seeds'
	// SiteConcentration.
	AutoAbsentDiscount bool
	// LabelledNegatives accepts seeds without negative examples ("other")
	// when they have two topics or more: the model then tells each topic
	// from the others, which stand for the pages off each one (a page
	// model that learns every label of a group, when no page of the group
	// is labelled other).
	LabelledNegatives bool
}

// Documents says how example pages become training documents.
type Documents string

// The kinds of training documents.
const (
	// DocPages: each example page is one document.
	DocPages Documents = "pages"
	// DocWindows: each example page is cut into consecutive windows of
	// the size of a link segment (anchor plus n tokens on each side), each
	// a document of the page's class, so that the model's statistics are
	// those of segment-sized documents, the ones it scores during a crawl.
	DocWindows Documents = "windows"
	// DocBoth: pages and windows.
	DocBoth Documents = "pages+windows"
	// DocLinks: the link-context segments of the examples whose target is
	// itself an example, each a document of the target's class (a topic,
	// or other); the model then learns what a link to a page of the topic
	// looks like.
	DocLinks Documents = "links"
	// DocWindowsLinks: windows and labelled links.
	DocWindowsLinks Documents = "windows+links"
)

// ParseDocuments checks a Documents name.
func ParseDocuments(s string) (Documents, error) {
	switch d := Documents(s); d {
	case DocPages, DocWindows, DocBoth, DocLinks, DocWindowsLinks:
		return d, nil
	}
	return "", fmt.Errorf("unknown training documents %q (want pages, windows, pages+windows, links or windows+links)", s)
}

// withLinks reports whether d includes the labelled link segments.
func (d Documents) withLinks() bool { return d == DocLinks || d == DocWindowsLinks }

// Keys of what Build records in the model (classify.Model.Meta).
const (
	MetaDocuments = "documents"  // how training documents were made
	MetaWindow    = "window"     // the link-context window n
	MetaURLTokens = "url_tokens" // "true" when link features include URL path words
)

// MaxWindow is the widest link-context window n (tokens on each side of
// a link) a model may learn from and record: a page keeps at most
// segment.DefaultMaxTokens tokens, so a wider window takes in nothing
// more.
const MaxWindow = segment.DefaultMaxTokens

// CheckMeta checks what Build recorded in m that NewScorer reads, each
// when m records it: the window, a whole number from 1 to MaxWindow;
// the documents, a name ParseDocuments knows; the URL tokens, true or
// false. A model without them scores with their defaults.
func CheckMeta(m *classify.Model) error {
	if v := m.Meta(MetaWindow); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > MaxWindow {
			return fmt.Errorf("meta %s %q: want a whole number of tokens from 1 to %d", MetaWindow, v, MaxWindow)
		}
	}
	if v := m.Meta(MetaDocuments); v != "" {
		if _, err := ParseDocuments(v); err != nil {
			return fmt.Errorf("meta %s %q: want pages, windows, pages+windows, links or windows+links", MetaDocuments, v)
		}
	}
	if v := m.Meta(MetaURLTokens); v != "" && v != "true" && v != "false" {
		return fmt.Errorf("meta %s %q: want true or false", MetaURLTokens, v)
	}
	return nil
}

// trainWithMeta trains a model on examples and records how its documents were
// made, so that NewScorer scores pages the same way.
func trainWithMeta(examples []classify.Example, opts Options) (*classify.Model, error) {
	m, err := classify.Train(examples, opts.Classify)
	if err != nil {
		return nil, err
	}
	setMeta(m, opts)
	return m, nil
}

// setMeta records in m how its documents were made.
func setMeta(m *classify.Model, opts Options) {
	m.SetMeta(MetaDocuments, string(opts.Documents))
	m.SetMeta(MetaWindow, strconv.Itoa(windowOf(opts)))
	if opts.Segment.URLTokens {
		m.SetMeta(MetaURLTokens, "true")
	}
}

// windowOf is the segment window n of opts.
func windowOf(opts Options) int {
	if opts.Segment.Window > 0 {
		return opts.Segment.Window
	}
	return segment.DefaultWindow
}

// windowSize is the length of a training window: a segment's anchor and n
// tokens on each side.
func windowSize(n int) int { return 2*n + 3 }

// examplesOf turns one page into training documents.
func examplesOf(class string, p *segment.Page, opts Options) []classify.Example {
	var out []classify.Example
	if opts.Documents == DocPages || opts.Documents == DocBoth {
		out = append(out, classify.Example{Class: class, Tokens: p.Tokens})
	}
	if opts.Documents == DocWindows || opts.Documents == DocBoth || opts.Documents == DocWindowsLinks {
		size := windowSize(windowOf(opts))
		for i := 0; i < len(p.Tokens); i += size {
			j := min(i+size, len(p.Tokens))
			if j-i < size/2 && i > 0 {
				break
			}
			out = append(out, classify.Example{Class: class, Tokens: p.Tokens[i:j]})
		}
	}
	return out
}

// Report says what a model was built from and how well it does.
type Report struct {
	Topics []TopicReport `json:"topics"`
	Other  int           `json:"other_documents"`
	Failed []Failure     `json:"failed,omitempty"`
	Terms  int           `json:"terms"`
	// K and MinChi2 are the model's classify.Options of the same names:
	// with MinChi2, fewer than K Terms are the terms that reach it.
	K        int                  `json:"k"`
	MinChi2  float64              `json:"min_chi2,omitempty"`
	Folds    int                  `json:"folds"`
	Page     *classify.Evaluation `json:"page_cv,omitempty"`
	Segment  *classify.Evaluation `json:"segment_cv,omitempty"`
	Segments int                  `json:"labelled_segments"`
	// OtherBacklinks counts backlink segments of negative examples.
	OtherBacklinks int `json:"other_backlink_segments,omitempty"`
	// LinkDocuments counts the labelled link segments trained on.
	LinkDocuments int `json:"link_documents,omitempty"`
	// ByThreshold is the cross-validation at each of
	// Options.CVThresholds, in that order.
	ByThreshold []ThresholdCV `json:"cv_by_threshold,omitempty"`
}

// ThresholdCV is the cross-validated page and segment classification with
// every topic's threshold set to Threshold.
type ThresholdCV struct {
	Threshold float64              `json:"threshold"`
	Page      *classify.Evaluation `json:"page_cv"`
	Segment   *classify.Evaluation `json:"segment_cv,omitempty"`
}

// CVAt returns the cross-validation at threshold th: the one of
// ByThreshold when th is among them, else Page and Segment (at the
// model's own thresholds).
func (r *Report) CVAt(th float64) (page, segment *classify.Evaluation) {
	for _, t := range r.ByThreshold {
		if t.Threshold == th {
			return t.Page, t.Segment
		}
	}
	return r.Page, r.Segment
}

// TopicReport is one topic's part of a Report.
type TopicReport struct {
	Name      string `json:"name"`
	Documents int    `json:"documents"`
	// Backlinks counts the backlink segments trained on.
	Backlinks int                `json:"backlink_segments"`
	Features  []classify.Feature `json:"features"`
}

// Failure is an example that could not be used.
type Failure struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Unreachable is set when no answer came (a network failure or a
	// timeout, robots.txt included).
	Unreachable bool `json:"unreachable,omitempty"`
}

// firstFailure describes the first recorded failure among sources, for an
// error message.
func firstFailure(rep *Report, sources []Source) string {
	want := make(map[string]bool, len(sources))
	for _, s := range sources {
		want[s.String()] = true
	}
	for _, f := range rep.Failed {
		if want[f.Source] {
			return fmt.Sprintf(" (%s: %s)", f.Source, f.Reason)
		}
	}
	return ""
}

type doc struct {
	class string
	src   Source
	page  *segment.Page
}

// Build fetches the examples of seeds, trains a model and evaluates it.
func Build(ctx context.Context, seeds *Seeds, f Fetcher, opts Options) (*classify.Model, *Report, error) {
	if err := seeds.validate(opts.LabelledNegatives); err != nil {
		return nil, nil, err
	}
	if opts.AutoAbsentDiscount {
		opts.Classify.AbsentDiscount = seeds.SiteConcentration()
	}
	if err := opts.Classify.Validate(); err != nil {
		return nil, nil, err
	}
	if opts.Folds == 0 {
		opts.Folds = 5
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 10 << 20
	}
	if opts.Documents == "" {
		opts.Documents = DocWindows
	}
	if opts.MaxBacklinks <= 0 {
		opts.MaxBacklinks = 10000
	}
	if _, err := ParseDocuments(string(opts.Documents)); err != nil {
		return nil, nil, err
	}
	var jobs []doc
	for _, t := range seeds.Topics {
		for _, s := range seeds.Train[t] {
			jobs = append(jobs, doc{class: t, src: s})
		}
	}
	negatives := seeds.negatives() // the plain ones, or else every kind's
	for _, s := range negatives {
		jobs = append(jobs, doc{class: classify.Other, src: s})
	}
	rep := &Report{}
	var (
		mu   sync.Mutex
		done atomic.Int64
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Parallel)
	for i := range jobs {
		g.Go(func() error {
			p, err := load(gctx, f, jobs[i].src, opts)
			n := done.Add(1)
			if gctx.Err() != nil {
				return gctx.Err()
			}
			if err != nil {
				mu.Lock()
				rep.Failed = append(rep.Failed, Failure{Source: jobs[i].src.String(), Reason: err.Error(), Unreachable: fetch.Unreachable(err)})
				mu.Unlock()
			} else {
				jobs[i].page = p
			}
			if opts.Progress != nil {
				mu.Lock()
				fmt.Fprintf(opts.Progress, "\rfetched %d/%d examples (%d failed)", n, len(jobs), len(rep.Failed))
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if opts.Progress != nil {
		fmt.Fprintln(opts.Progress)
	}
	// Two examples of a class that are one page (a URL redirecting to
	// another example, or two URLs redirecting to one page) are one
	// example: trained on twice, the page would weigh double, and cross-
	// validation would score it with itself in the training folds.
	type classPage struct {
		class string
		url   urlnorm.URL
	}
	first := make(map[classPage]Source)
	// A page that is a topic's example and a negative (a URL redirecting
	// to a negative, or two URLs of one page given both ways) is
	// trained on as neither: the seed file says both of it.
	var exampleOf, negativeAt map[urlnorm.URL]Source
	for _, d := range jobs {
		if d.page == nil || len(d.page.Tokens) == 0 || d.src.URL.IsZero() {
			continue
		}
		m := &exampleOf
		if d.class == classify.Other {
			m = &negativeAt
		}
		if *m == nil {
			*m = make(map[urlnorm.URL]Source)
		}
		if _, ok := (*m)[d.page.URL]; !ok {
			(*m)[d.page.URL] = d.src
		}
	}
	var docs []doc
	for _, d := range jobs {
		if d.page != nil && len(d.page.Tokens) > 0 && !d.src.URL.IsZero() {
			ex, isEx := exampleOf[d.page.URL]
			neg, isNeg := negativeAt[d.page.URL]
			if isEx && isNeg {
				rep.Failed = append(rep.Failed, Failure{Source: d.src.String(), Reason: fmt.Sprintf("conflict: the same page (%s) is an example (%s, line %d) and a negative (%s, line %d); trained as neither", d.page.URL, ex, ex.Line, neg, neg.Line)})
				continue
			}
		}
		switch {
		case d.page == nil:
		case len(d.page.Tokens) == 0:
			rep.Failed = append(rep.Failed, Failure{Source: d.src.String(), Reason: "no text: the page has no words"})
		case d.src.URL.IsZero():
			docs = append(docs, d)
		default:
			k := classPage{d.class, d.page.URL}
			if src, ok := first[k]; ok {
				rep.Failed = append(rep.Failed, Failure{Source: d.src.String(), Reason: fmt.Sprintf("duplicate: the same page (%s) as %s, line %d", d.page.URL, src, src.Line)})
				continue
			}
			first[k] = d.src
			docs = append(docs, d)
		}
	}
	sort.Slice(rep.Failed, func(i, j int) bool { return rep.Failed[i].Source < rep.Failed[j].Source })
	keepForTraining(docs)
	var examples []classify.Example
	count := make(map[string]int)
	for _, d := range docs {
		examples = append(examples, examplesOf(d.class, d.page, opts)...)
		count[d.class]++
	}
	if opts.Documents.withLinks() {
		links := linkExamples(docs)
		rep.LinkDocuments = len(links)
		examples = append(examples, links...)
	}
	backCount := make(map[string]int)
	if len(opts.Backlinks) > 0 || opts.BacklinkSource != nil {
		back, n, err := backlinkExamples(ctx, docs, f, opts)
		if err != nil {
			return nil, rep, err
		}
		examples = append(examples, back...)
		backCount = n
		rep.OtherBacklinks = n[classify.Other]
	}
	for _, t := range seeds.Topics {
		if count[t] == 0 && rep.Unreachable() {
			return nil, rep, fmt.Errorf("%w: none of the %d example pages of topic %s could be fetched, no server answered%s", ErrUnreachable, len(seeds.Train[t]), t, firstFailure(rep, seeds.Train[t]))
		}
		if count[t] == 0 {
			return nil, rep, fmt.Errorf("topic %s: none of its %d example pages could be used%s", t, len(seeds.Train[t]), firstFailure(rep, seeds.Train[t]))
		}
	}
	classes := slices.Clone(seeds.Topics)
	if len(negatives) > 0 { // none only with LabelledNegatives
		if count[classify.Other] == 0 && rep.Unreachable() {
			return nil, rep, fmt.Errorf("%w: none of the negative examples could be fetched, no server answered%s", ErrUnreachable, firstFailure(rep, negatives))
		}
		if count[classify.Other] == 0 {
			return nil, rep, fmt.Errorf("none of the negative examples could be used%s", firstFailure(rep, negatives))
		}
		classes = append(classes, classify.Other)
	}
	model, err := trainWithMeta(examples, opts)
	if err != nil {
		return nil, rep, fmt.Errorf("train: %w", err)
	}
	// With link documents only, a class no example links to has no
	// training document and would be silently missing from the model.
	for _, c := range classes {
		if model.Index(c) < 0 {
			return nil, rep, fmt.Errorf("class %s: no training documents with documents %q (no example links to one of its examples)", c, opts.Documents)
		}
	}
	rep.Terms = model.NumTerms()
	rep.K, rep.MinChi2 = model.Options().K, model.Options().MinChi2
	rep.Other = count[classify.Other]
	for _, t := range seeds.Topics {
		rep.Topics = append(rep.Topics, TopicReport{Name: t, Documents: count[t], Backlinks: backCount[t], Features: model.Top(t, 30)})
	}
	if opts.Folds > 1 {
		rep.Folds = opts.Folds
		if err := crossValidate(docs, opts, rep); err != nil {
			return nil, rep, err
		}
	}
	return model, rep, nil
}

// crossValidate measures page classification with classify.CrossValidate
// and segment classification on labelled links: links of held-out pages
// whose target is itself an example, labelled with the target's class.
func crossValidate(docs []doc, opts Options, rep *Report) error {
	// A class of a single example (a one-page label among a group's
	// pages) cannot be held out without leaving its fold's model without
	// it: it is always trained on and never scored. Every other class
	// bounds the folds, so each fold can hold out one of its examples.
	count := make(map[string]int)
	for _, d := range docs {
		count[d.class]++
	}
	folds, held := opts.Folds, 0
	for _, n := range count {
		if n >= 2 {
			folds = min(folds, n)
			held++
		}
	}
	if folds < 2 || held < 2 {
		return nil
	}
	rep.Folds = folds
	// Each fold trains the model exactly as Build does and scores the
	// held-out pages as the crawler does (ScorePage), and the labelled
	// links among them (links whose target is an example) as segments.
	classOf := classesOf(docs)
	r := rand.New(rand.NewPCG(uint64(opts.Seed), 7))
	perm := r.Perm(len(docs))
	fold := func(i int) int {
		if count[docs[i].class] < 2 {
			return -1
		}
		return perm[i] % folds
	}
	var pages, segs evalTally
	extra := make([]struct {
		th          func(int) float64
		pages, segs evalTally
	}, len(opts.CVThresholds))
	for j, th := range opts.CVThresholds {
		extra[j].th = fixed(th)
	}
	// Every fold trains on the documents of the pages outside it.
	var examples []classify.Example
	var exFold []int
	for i, d := range docs {
		n := len(examples)
		examples = append(examples, examplesOf(d.class, d.page, opts)...)
		if opts.Documents.withLinks() {
			examples = appendLinks(examples, d, classOf)
		}
		for range len(examples) - n {
			exFold = append(exFold, fold(i))
		}
	}
	err := classify.TrainFolds(examples, exFold, folds, opts.Classify, func(k int, m *classify.Model, err error) error {
		if err != nil {
			return nil // a fold without some class cannot be scored
		}
		setMeta(m, opts)
		sc := NewScorer(m)
		if len(sc.Topics()) == 0 {
			return nil
		}
		var buf []float64
		var toks []string
		for i, d := range docs {
			if fold(i) != k {
				continue
			}
			buf = sc.ScorePage(d.page.Tokens, buf)
			pages.add(sc.Topics(), sc.Threshold, d.class, buf)
			for j := range extra {
				extra[j].pages.add(sc.Topics(), extra[j].th, d.class, buf)
			}
			for _, s := range d.page.Segments {
				c, ok := classOf[s.URL]
				if !ok || s.URL == d.page.URL {
					continue
				}
				toks = s.Tokens(toks[:0])
				buf = sc.Score(toks, buf)
				segs.add(sc.Topics(), sc.Threshold, c, buf)
				for j := range extra {
					extra[j].segs.add(sc.Topics(), extra[j].th, c, buf)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep.Page, rep.Segment = pages.evaluations(&segs, folds)
	rep.Segments = segs.n
	for j, th := range opts.CVThresholds {
		p, s := extra[j].pages.evaluations(&extra[j].segs, folds)
		rep.ByThreshold = append(rep.ByThreshold, ThresholdCV{Threshold: th, Page: p, Segment: s})
	}
	return nil
}

// fixed is a per-topic threshold function that gives th for every topic.
func fixed(th float64) func(int) float64 { return func(int) float64 { return th } }

// evaluations are the page evaluation of t and the segment one of segs
// (nil when no segment was counted).
func (t *evalTally) evaluations(segs *evalTally, folds int) (page, segment *classify.Evaluation) {
	ev := t.evaluation(folds)
	page = &ev
	if segs.n > 0 {
		ev2 := segs.evaluation(folds)
		segment = &ev2
	}
	return page, segment
}

// linkExamples returns the link segments of docs whose target is one of
// docs, labelled with the target's class.
func linkExamples(docs []doc) []classify.Example {
	classOf := classesOf(docs)
	var out []classify.Example
	for _, d := range docs {
		out = appendLinks(out, d, classOf)
	}
	return out
}

// classesOf maps the requested and final URL of every web example to its
// class. Local files have no URL a link could point to.
func classesOf(docs []doc) map[urlnorm.URL]string {
	classOf := make(map[urlnorm.URL]string)
	for _, d := range docs {
		if !d.src.URL.IsZero() {
			classOf[d.src.URL] = d.class
			classOf[d.page.URL] = d.class
		}
	}
	return classOf
}

// keepForTraining lets go of what training does not read in the pages
// of docs, which are held until cross-validation ends: their text and
// title, and the segments of links to pages that are not examples.
// Training reads a page's tokens and the links between examples
// (appendLinks, crossValidate).
func keepForTraining(docs []doc) {
	classOf := classesOf(docs)
	for _, d := range docs {
		p := d.page
		p.Text, p.Title = "", ""
		n := 0
		for _, s := range p.Segments {
			if _, ok := classOf[s.URL]; ok && s.URL != p.URL {
				n++
			}
		}
		if n == len(p.Segments) {
			continue
		}
		kept := make([]segment.Segment, 0, n)
		for _, s := range p.Segments {
			if _, ok := classOf[s.URL]; ok && s.URL != p.URL {
				kept = append(kept, s)
			}
		}
		p.Segments = kept
	}
}

// appendLinks appends the segments of d's links to other examples,
// labelled with the target's class.
func appendLinks(out []classify.Example, d doc, classOf map[urlnorm.URL]string) []classify.Example {
	for _, s := range d.page.Segments {
		if c, ok := classOf[s.URL]; ok && s.URL != d.page.URL {
			out = append(out, classify.Example{Class: c, Tokens: s.Tokens(nil)})
		}
	}
	return out
}

type evalTally struct {
	counts  map[string]*classify.TopicScore
	n       int
	correct int // documents whose every topic decision is right
}

// add counts one held-out document: truth is its class, scores the
// per-topic scores of it, threshold(i) the threshold of topics[i].
func (t *evalTally) add(topics []string, threshold func(int) float64, truth string, scores []float64) {
	if t.counts == nil {
		t.counts = make(map[string]*classify.TopicScore)
	}
	t.n++
	right := true
	for i, c := range topics {
		ts := t.counts[c]
		if ts == nil {
			ts = &classify.TopicScore{Class: c}
			t.counts[c] = ts
		}
		rel := scores[i] >= threshold(i)
		isC := truth == c
		if isC {
			ts.Support++
		}
		if rel != isC {
			right = false
		}
		switch {
		case rel && isC:
			ts.TruePositives++
		case rel && !isC:
			ts.FalsePositives++
		case !rel && isC:
			ts.FalseNegatives++
		}
	}
	if right {
		t.correct++
	}
}

func (t *evalTally) evaluation(folds int) classify.Evaluation {
	ev := classify.Evaluation{Folds: folds, Documents: t.n}
	if t.n > 0 {
		ev.Accuracy = float64(t.correct) / float64(t.n)
	}
	names := make([]string, 0, len(t.counts))
	for c := range t.counts {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		ts := *t.counts[c]
		if d := ts.TruePositives + ts.FalsePositives; d > 0 {
			ts.Precision = float64(ts.TruePositives) / float64(d)
		}
		if ts.Support > 0 {
			ts.Recall = float64(ts.TruePositives) / float64(ts.Support)
		}
		if ts.Precision+ts.Recall > 0 {
			ts.F1 = 2 * ts.Precision * ts.Recall / (ts.Precision + ts.Recall)
		}
		ev.Topics = append(ev.Topics, ts)
	}
	return ev
}

// load fetches or reads one example and splits it.
func load(ctx context.Context, f Fetcher, s Source, opts Options) (*segment.Page, error) {
	if s.Path != "" {
		body, err := readExample(s.Path, opts.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(s.Path)
		base, _ := urlnorm.Parse("http://localhost/" + strings.TrimPrefix(filepath.ToSlash(abs), "/"))
		// Only the media type comes from the extension: the table's
		// "charset=utf-8" would override the file's own <meta charset>.
		ct, _, _ := mime.ParseMediaType(mime.TypeByExtension(filepath.Ext(s.Path)))
		if ct == "" {
			ct = "text/html"
		}
		return segment.Split(body, ct, base, opts.Segment)
	}
	res, err := f.Fetch(ctx, s.URL, nil)
	if err != nil {
		return nil, err
	}
	return splitResult(res, opts)
}

// readExample reads a local example file of at most max bytes (its
// errors leave the path to the caller, which reports the source). Only a
// regular file is read: a device or a named pipe (/dev/zero, a FIFO)
// has no size to check and may never end. The limit holds while reading
// too, for a file that grows after its size was checked.
func readExample(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s, not a regular file", fileKind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%d bytes, over the %d-byte limit", fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("over the %d-byte limit", max)
	}
	return body, nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// splitResult cuts a fetched page into tokens and segments.
func splitResult(res *fetch.Result, opts Options) (*segment.Page, error) {
	return segment.Split(res.Body, res.ContentType, res.FinalURL, opts.Segment)
}

// ErrUnreachable marks a training that failed because no example page
// could be fetched for want of an answer: the network, not the seed file,
// is the problem.
var ErrUnreachable = errors.New("network unreachable")

// Unreachable reports whether every example that failed to load got no
// answer, and at least one did: the examples were not wrong, the network
// was down.
func (r *Report) Unreachable() bool {
	if r == nil || len(r.Failed) == 0 {
		return false
	}
	for _, f := range r.Failed {
		if !f.Unreachable && !strings.HasPrefix(f.Reason, "no text") {
			return false
		}
	}
	return true
}

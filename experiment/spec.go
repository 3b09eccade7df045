package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/atomicfile"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// Spec is one experiment: a crawl of a replayed labelled collection with
// a model trained on its examples, measured on held-out targets. A Grid
// expands into Specs; the zero value of each field is documented where it
// differs from the flag's default.
type Spec struct {
	// CrawlProgress, when set, is given the crawl's progress
	// (crawler.Config.Progress); the command draws it.
	CrawlProgress func(crawler.Progress) `json:"-"`
	// Archive is the collection (a tarball or folder in WebKB's layout)
	// served on loopback; Out the folder the experiment writes into.
	Archive, Out string
	// Seeds are the crawl's start URLs; none: the home pages of the
	// collection's sites (webkb.SiteSeeds).
	Seeds []string `json:",omitempty"`
	// Group is the group whose labelled pages train the model; "": the
	// collection's one group that is not a site (webkb.Group).
	Group string
	// Negatives are the negative examples: "other" for the pages of
	// Group labelled "other", "rest" for every page of Group not labelled
	// with a topic; "": "other" when Group has such pages, else "rest"
	// (webkb.Negatives).
	Negatives string
	// PageNegatives, when it differs from Negatives (and is not ""),
	// trains a second model with these negatives to judge pages; with
	// "labels" every other page of Group is an example of its own label,
	// so that the model tells the topic from each kind of page apart.
	PageNegatives string
	// PageDocuments is what a training document of the page model is
	// (training.ParseDocuments; "" for Model.Documents).
	PageDocuments string
	// PagePriorMix is the page model's classify.Options.PriorMix: with
	// every other label a class of its own, a label with few training
	// pages (WebKB's staff: 87 against faculty's 969) is otherwise judged
	// by its share of the training group, not of the pages crawled. 0
	// keeps the priors (the flag's default is 0.1).
	PagePriorMix float64
	// PageAbsentDiscount is the page model's
	// classify.Options.AbsentDiscount, or training.AutoAbsentDiscount: a page of
	// another site than the training pages' lacks the words they share,
	// which the binary model otherwise reads as evidence against their
	// label. 0 discounts nothing (the flag's default is auto).
	PageAbsentDiscount float64
	// Topics are the topics crawled for; Strategy and Frontier the
	// crawl's ("" frontier: the stack).
	Topics   []string
	Strategy crawler.Strategy
	Frontier crawler.Frontier
	// Budget are the pages fetched successfully (0: no limit); Workers
	// the pages fetched at once.
	Budget, Workers int
	// Discovery are the pages of the breadth-first crawl from the
	// examples' sites that finds backlinks (link+backlinks).
	Discovery int
	// The crawl's policies, as in crawler.Config.
	Tunnel, Promote, Sections, Lockstep, Overlap, SiteNorm, Survey bool
	// Speculate guesses each lockstep round (crawler.Config.Speculate).
	Speculate bool
	// Learn adds the link learner with LearnOptions; SkipExamples never
	// fetches the pages the model learnt from.
	Learn        bool
	LearnOptions learn.Options
	// LearnPrior, when positive, primes the learner with the links
	// between the training pages, each with this weight
	// (learn.TrainingLinks, Learner.Prime).
	LearnPrior   float64
	SkipExamples bool
	// Oracle scores links by their target's label, HubOracle scores 1 the
	// links to the topic's hubs.
	Oracle, HubOracle bool
	// Baseline measures breadth-first and the all-knowing plan beside the
	// crawl.
	Baseline bool
	// Model are the model's settings.
	Model training.Settings
	// Command is the command line recorded in Out/command.
	Command string
}

// Validate checks the settings every experiment shares and makes sure
// the output folder can be written, without creating it: Run and
// RunGrid make it once the collection is checked too, so that a refused
// experiment leaves no folder behind.
func (o *Spec) Validate() error {
	switch {
	case o.Budget < 0:
		return fmt.Errorf("--budget must be 0 (no limit) or more pages, not %d", o.Budget)
	case o.Workers < 1 || o.Workers > crawler.MaxWorkers:
		return fmt.Errorf("--workers must be from 1 to %d, not %d", crawler.MaxWorkers, o.Workers)
	case o.Discovery < 0:
		return fmt.Errorf("--discovery must not be negative, not %d", o.Discovery)
	case o.Model.M <= 0:
		return fmt.Errorf("--m must be positive, not %g", o.Model.M)
	case o.Model.Folds < 0 || o.Model.Folds == 1:
		return fmt.Errorf("--folds must be 0 (none) or at least 2, not %d", o.Model.Folds)
	case o.Out == "":
		return errors.New("--out is required")
	}
	if err := (crawler.Config{Workers: o.Workers}).Validate(); err != nil {
		return fmt.Errorf("--workers %d: %w", o.Workers, err)
	}
	if o.Learn && (o.Tunnel || o.Promote) {
		return errors.New("--tunnel and --promote steer the paper's stacks, but the link learner (on by default) keeps every link on them: add --learn=false or --preset paper")
	}
	if _, err := classify.ParseEvent(o.Model.Event); err != nil {
		return err
	}
	if _, err := training.ParseDocuments(o.Model.Documents); err != nil {
		return err
	}
	switch o.Negatives {
	case "", "other", "rest":
	default:
		return fmt.Errorf("--negatives %q: want other or rest", o.Negatives)
	}
	switch o.PageNegatives {
	case "", "other", "rest", "labels":
	default:
		return fmt.Errorf("--page-negatives %q: want other, rest, labels or \"\" (one model)", o.PageNegatives)
	}
	if o.PageDocuments != "" {
		if _, err := training.ParseDocuments(o.PageDocuments); err != nil {
			return fmt.Errorf("--page-documents: %w", err)
		}
	}
	if err := (classify.Options{PriorMix: o.PagePriorMix}).Validate(); err != nil {
		return fmt.Errorf("--page-prior-mix: %w", err)
	}
	if o.PageAbsentDiscount != training.AutoAbsentDiscount {
		if err := (classify.Options{AbsentDiscount: o.PageAbsentDiscount}).Validate(); err != nil {
			return fmt.Errorf("--page-absent-discount: %w", err)
		}
	}
	if _, err := ParseSeeds(o.Seeds); err != nil {
		return err
	}
	if _, err := os.Stat(o.Archive); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return checkOut(o.Out)
}

// checkOut makes sure the output folder dir can be written, without
// creating it: dir, or when it does not exist the nearest of its parents
// that does, must be a directory a file can be created in.
func checkOut(dir string) error {
	d := dir
	if top := NewFolder(dir); top != "" {
		d = filepath.Dir(top)
	}
	err := atomicfile.CheckWritableDir(d, "--out")
	if err != nil && d != dir {
		return fmt.Errorf("--out %s cannot be created: %w", dir, err)
	}
	return err
}

// NewFolder returns the outermost folder that making dir would create:
// dir or the first of its parents that does not exist; "" when dir
// exists.
func NewFolder(dir string) string {
	created := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return created
		}
		created = d
		if filepath.Dir(d) == d {
			return created
		}
	}
}

// makeOut creates the output folder dir, checked by checkOut.
func makeOut(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s cannot be created: %w", dir, err)
	}
	return nil
}

// resolve sets the group and the negatives left to the collection a
// (Group and Negatives ""), saying which to progress.
func (o *Spec) resolve(a *replay.Archive, progress io.Writer) error {
	g, err := webkb.Group(a, o.Group)
	if err != nil {
		return err
	}
	if o.Group == "" {
		fmt.Fprintf(progress, "training group %s: the collection's one group that is not a site\n", g)
	}
	o.Group = g
	if o.Negatives == "" {
		if o.Negatives = webkb.Negatives(a, o.Group, ""); o.Negatives == "rest" {
			fmt.Fprintf(progress, "negative examples: every page of %s not labelled with a topic (none is labelled %s)\n", o.Group, replay.Other)
		}
	}
	return nil
}

// ParseSeeds parses the start URLs given with --seed: nil when there
// are none (a crawl then starts from the collection's own,
// webkb.SiteSeeds).
func ParseSeeds(seeds []string) ([]urlnorm.URL, error) {
	var out []urlnorm.URL
	for _, s := range seeds {
		u, err := urlnorm.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("--seed %q: %w", s, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// TopicExamples returns the URLs of each topic's example pages, in the
// order of topics.
func TopicExamples(s *training.Seeds, topics []string) [][]urlnorm.URL {
	out := make([][]urlnorm.URL, len(topics))
	for t, topic := range topics {
		for _, src := range s.Train[topic] {
			if !src.URL.IsZero() {
				out[t] = append(out[t], src.URL)
			}
		}
	}
	return out
}

// learning sets cfg's link learner (--learn), primed with the links
// between the training pages fetched with f (LearnPrior; release, when
// not nil, is called once they are counted), and the URLs it never
// fetches (--skip-examples: the pages the model learnt from).
func (o Spec) learning(cfg *crawler.Config, seeds *training.Seeds, sc crawler.Scorer, f crawler.Fetcher, release func(), progress io.Writer) error {
	if o.SkipExamples && cfg.Strategy != crawler.StrategyBFS {
		cfg.Known = seeds.Examples()
	}
	if !o.Learn || cfg.Strategy == crawler.StrategyBFS {
		return nil
	}
	lo := o.LearnOptions
	if cfg.SiteNorm != nil {
		lo.Canonical = cfg.SiteNorm.Canonical
	}
	if o.LearnPrior > 0 {
		lo.Prior, lo.PriorWeight = TrainingPrior(seeds, sc, f, cfg.Segment, cfg.Workers, progress, release), o.LearnPrior
	}
	l, err := learn.New(sc.Topics(), lo)
	cfg.Learner = l
	return err
}

// TrainingPrior returns the learner's prior (learn.Options.Prior): the
// links between the training pages of s, fetched with f when a new crawl
// opens, parallel at once (the crawl's workers), with a line to
// progress; release, when not nil, is called once they are read (a
// fetch cache holding the pages lets them go).
func TrainingPrior(s *training.Seeds, sc crawler.Scorer, f crawler.Fetcher, seg segment.Options, parallel int, progress io.Writer, release func()) func(context.Context) ([]learn.PriorLink, error) {
	return func(ctx context.Context) ([]learn.PriorLink, error) {
		if release != nil {
			defer release()
		}
		links, n := learn.TrainingLinks(ctx, f, sc, seg, s.Examples(), TopicExamples(s, sc.Topics()), parallel)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "learner primed with %d links between %d training pages\n", len(links), n)
		return links, nil
	}
}

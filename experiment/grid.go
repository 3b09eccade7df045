package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/owner"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// gridCell is one crawl of an experiment grid. A bfs cell has no
// classifier: its k, window and threshold are the grid's defaults, used
// only when it is the grid's one cell (the single experiment trains a
// model whatever the strategy).
type gridCell struct {
	topics    []string
	strategy  crawler.Strategy
	frontier  crawler.Frontier // "" for bfs
	k, window int
	threshold float64
}

// classified reports whether the cell crawls with a classifier.
func (c gridCell) classified() bool { return c.strategy != crawler.StrategyBFS }

// name is the cell's folder name, e.g. course-link-stack-k1000-n10-t0.76
// or course+faculty-bfs.
func (c gridCell) name() string {
	set := report.TopicSet(c.topics)
	if !c.classified() {
		return set + "-" + string(c.strategy)
	}
	return fmt.Sprintf("%s-%s-%s-k%d-n%d-t%s", set, c.strategy, c.frontier, c.k, c.window, strconv.FormatFloat(c.threshold, 'g', -1, 64))
}

// modelKey names the model a cell crawls with: one per topic set, K and
// window, and apart for backlink features.
type modelKey struct {
	topics    string
	k, window int
	backlinks bool
}

func (c gridCell) model() modelKey {
	return modelKey{topics: report.TopicSet(c.topics), k: c.k, window: c.window, backlinks: c.strategy == crawler.StrategyLinkBacklinks}
}

// trained is a model of the grid with its training report.
type trained struct {
	scorer *training.Scorer
	rep    *training.Report
	learnt []urlnorm.URL // the pages it learnt from
}

// gridRun holds what the cells of a grid share.
type gridRun struct {
	o          Grid
	work       string // temporary folder of the crawls
	labelPath  string
	fetcher    *fetch.Fetcher
	examples   *FetchCache
	seeds      map[string]*training.Seeds // by topic set
	discovery  map[string]*sqlite.Store   // backlinks of link+backlinks per topic set and window, opened on first use
	models     map[modelKey]*trained
	pages      map[modelKey]*pageModel // with --page-negatives
	starts     []urlnorm.URL           // the crawls' seeds given (Spec.Seeds); nil: the collection's
	trainTh    float64                 // the threshold the models are trained with
	ths        []float64               // the thresholds of the cells, each cross-validated
	bfs        map[string]bfsCrawl
	base       map[string]*baselines // breadth-first and plans by crawl seeds (with --baseline)
	progress   io.Writer
	collection *replay.Archive
}

// bfsCrawl is a breadth-first crawl shared by the topic sets of a grid:
// it does not depend on them.
type bfsCrawl struct {
	db      string
	name    string
	sum     crawler.Summary
	seconds float64
}

// runGrid runs every cell with one replay server and one fetcher and
// writes the cells' reports and the combined report into o.Out.
func runGrid(ctx context.Context, o Grid, cells []gridCell, stdout, progress io.Writer) (*report.Grid, error) {
	start := time.Now()
	settings, err := o.settings()
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	// A kept folder is named without the maker's tag, so that no later
	// run takes it for one a killed run left (owner.TempDir).
	var work string
	if o.Keep {
		work, err = os.MkdirTemp("", "scent-grid-")
	} else {
		work, err = owner.TempDir("scent-grid-")
	}
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	if o.Keep {
		fmt.Fprintf(progress, "crawls, exports and models are kept in %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	a, fc, starts, stop, err := o.serve(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer stop()
	g := &gridRun{o: o, starts: starts, work: work, labelPath: filepath.Join(work, "labels.tsv"), seeds: make(map[string]*training.Seeds),
		models: make(map[modelKey]*trained), pages: make(map[modelKey]*pageModel), bfs: make(map[string]bfsCrawl), base: make(map[string]*baselines), progress: progress, collection: a}
	if err := writeFileAtomic(g.labelPath, func(f *os.File) error { return webkb.WriteReachableLabels(f, a, starts) }); err != nil {
		return nil, err
	}
	if g.fetcher, err = fetch.New(fc); err != nil {
		return nil, err
	}
	defer g.fetcher.Close()
	g.examples = NewFetchCache(g.fetcher)
	g.discovery = make(map[string]*sqlite.Store)
	defer func() {
		for _, st := range g.discovery {
			st.Close()
		}
	}()
	for _, c := range cells {
		set := report.TopicSet(c.topics)
		if g.seeds[set] != nil {
			continue
		}
		path := filepath.Join(work, "seeds-"+set+".txt")
		if err := writeSeedFile(path, a, starts, c.topics, o.Group, o.Negatives, progress); err != nil {
			return nil, fmt.Errorf("grid: seeds of %s: %w", set, err)
		}
		if g.seeds[set], err = training.LoadSeeds(path); err != nil {
			return nil, err
		}
	}
	for _, c := range cells {
		if c.classified() && !slices.Contains(g.ths, c.threshold) {
			g.ths = append(g.ths, c.threshold)
		}
	}
	if len(g.ths) > 0 {
		g.trainTh = nearest(g.ths, report.GridDefaultThreshold)
	}
	// The output folder is made once the collection gave every topic
	// set its seed file: a refused grid leaves none.
	if err := makeOut(o.Out); err != nil {
		return nil, err
	}
	done, err := prepareCells(o.Out, settings, func(msg string) { fmt.Fprintln(progress, msg) })
	if err != nil {
		return nil, err
	}
	if n := countDone(cells, done); n > 0 {
		fmt.Fprintf(progress, "%d of %d cells were finished by an earlier run of this grid in %s: kept\n", n, len(cells), o.Out)
	}
	command := o.Command
	if err := clearReports(o.Out); err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(o.Out, "command"), func(f *os.File) error {
		_, err := fmt.Fprintln(f, command)
		return err
	}); err != nil {
		return nil, fmt.Errorf("grid: write command: %w", err)
	}

	out := &report.Grid{Command: command, Budget: o.Budget}
	bar := newGridProgress(progress, isTerminal(os.Stderr), len(cells))
	for i, c := range cells {
		if gc := done[c.name()]; gc != nil {
			out.Cells = append(out.Cells, gc)
			out.Resumed++
			bar.done(i, gc.Name, cellSummary(gc)+", from an earlier run")
			continue
		}
		bar.begin(i, c.name())
		gc, err := g.runCell(ctx, c)
		if err != nil {
			bar.end()
			return nil, fmt.Errorf("grid cell %s: %w", c.name(), err)
		}
		out.Cells = append(out.Cells, gc)
		if err := writeCell(o.Out, gc); err != nil {
			bar.end()
			return nil, fmt.Errorf("grid cell %s: write: %w", gc.Name, err)
		}
		bar.done(i, gc.Name, cellSummary(gc))
	}
	bar.end()
	out.Seconds = time.Since(start).Seconds()
	writers := []struct {
		name  string
		write func(io.Writer) error
	}{{"report.json", out.WriteJSON}, {"report.md", out.WriteMarkdown}, {"report.csv", out.WriteCSV}, {"report.html", out.WriteHTML}}
	for _, w := range writers {
		if err := writeFileAtomic(filepath.Join(o.Out, w.name), func(f *os.File) error { return w.write(f) }); err != nil {
			return nil, fmt.Errorf("grid: write %s: %w", w.name, err)
		}
	}
	for _, s := range out.Sections() {
		var best *report.GridCell
		var bestRecall float64
		for _, c := range s.Cells {
			if t := c.Report.Topic(s.Topic); t != nil && t.Targets > 0 && (best == nil || t.Recall > bestRecall) {
				best, bestRecall = c, t.Recall
			}
		}
		if best != nil {
			fmt.Fprintf(stdout, "%s: best held-out recall %.3f (%s%s)\n", s.Title(), bestRecall, best.Name, headline(best.Report.Topic(s.Topic)))
		}
	}
	fmt.Fprintf(stdout, "grid of %d cells in %.0f s; report in %s\n", len(cells), time.Since(start).Seconds(), filepath.Join(o.Out, "report.html"))
	return out, nil
}

// countDone counts the cells of the grid that done holds.
func countDone(cells []gridCell, done map[string]*report.GridCell) int {
	n := 0
	for _, c := range cells {
		if done[c.name()] != nil {
			n++
		}
	}
	return n
}

// cellSummary is the line a finished cell is reported with.
func cellSummary(c *report.GridCell) string {
	var parts []string
	for _, t := range c.Report.Topics {
		parts = append(parts, fmt.Sprintf("%s recall %.3f", t.Topic, t.Recall))
	}
	return fmt.Sprintf("%d pages, %s", c.Report.Pages, strings.Join(parts, ", "))
}

// runCell crawls one cell into its own database in the work folder and
// measures it.
func (g *gridRun) runCell(ctx context.Context, c gridCell) (*report.GridCell, error) {
	name := c.name()
	gc := &report.GridCell{Name: name, Topics: c.topics, Strategy: string(c.strategy)}
	if c.classified() {
		gc.Frontier, gc.K, gc.Window, gc.Threshold = string(c.frontier), c.k, c.window, c.threshold
	}
	var (
		db, crawl string
		learnt    []urlnorm.URL
		sum       crawler.Summary
		th        map[string]float64
		start     time.Time // of the crawl; training is not counted
	)
	if !c.classified() {
		b, err := g.bfsCrawl(ctx, c)
		if err != nil {
			return nil, err
		}
		db, crawl, sum = b.db, b.name, b.sum
		// No model: the targets are those of the topic set's models
		// without backlinks, which learnt from the examples alone.
		learnt = training.LearntFrom(g.seeds[report.TopicSet(c.topics)], nil)
		// A shared crawl counts for every topic set.
		start = time.Now().Add(-time.Duration(b.seconds * float64(time.Second)))
	} else {
		m, err := g.model(ctx, c)
		if err != nil {
			return nil, err
		}
		start = time.Now()
		learnt = m.learnt
		gc.Training = trainingScores(m.rep, c.threshold)
		var sc crawler.Scorer = m.scorer
		if c.threshold != g.trainTh {
			sc = thresholdScorer{m.scorer, c.threshold}
		}
		if g.o.Oracle || g.o.HubOracle {
			sc = newOracleScorer(sc, g.collection, g.o.Oracle, g.o.HubOracle)
		}
		th = map[string]float64{"": c.threshold}
		dir := filepath.Join(g.work, "cells", name)
		db, crawl = filepath.Join(dir, "scent.db"), name
		seeds := g.seeds[report.TopicSet(c.topics)]
		cfg := crawler.Config{Name: name, Strategy: c.strategy, Frontier: c.frontier, Workers: g.o.Workers,
			MaxPages: g.o.Budget, Segment: g.segment(c.window), Tunnel: g.o.Tunnel, Promote: g.o.Promote, Sections: g.o.Sections, Lockstep: g.o.Lockstep, Overlap: g.o.Overlap, Speculate: g.o.Speculate, Survey: g.o.Survey}
		if sc, learnt, err = g.cellLearning(ctx, c, &cfg, sc, m.rep, learnt); err != nil {
			return nil, err
		}
		cfg.Learnt = learnt
		if sum, err = g.crawl(ctx, dir, seeds.Crawl, cfg, sc); err != nil {
			return nil, err
		}
	}
	rep, err := Measure(ctx, db, crawl, ReadOptions{}, g.labelPath, 100, c.topics, report.ScopeAllLabels, th, learnt)
	if err != nil {
		return nil, err
	}
	if g.o.Baseline {
		seeds := g.seeds[report.TopicSet(c.topics)].Crawl
		b := g.base[fmt.Sprint(seeds)]
		if b == nil {
			if b, err = newBaselines(ctx, g.collection, g.o.Archive, seeds, g.labelPath, g.fetcher, g.o.Workers); err != nil {
				return nil, err
			}
			g.base[fmt.Sprint(seeds)] = b
		}
		b.apply(rep, learnt)
	}
	rep.Crawl = name
	rep.PagesPerSecond = sum.PagesPerSec
	rep.FetchesPerSecond = sum.FetchesPerSec
	rep.Seconds, rep.BetweenRoundsSeconds = sum.Elapsed.Seconds(), sum.BetweenRounds.Seconds()
	rep.Guessed, rep.Discarded = sum.Guessed, sum.Discarded
	gc.Report = rep
	gc.Seconds = time.Since(start).Seconds()
	return gc, nil
}

func (g *gridRun) segment(window int) segment.Options {
	return segment.Options{Window: window, URLTokens: g.o.Model.URLTokens}
}

// crawl runs one crawl into dir/scent.db (and, with --keep, exports it to
// dir/pages.jsonl).
func (g *gridRun) crawl(ctx context.Context, dir string, seeds []urlnorm.URL, cfg crawler.Config, sc crawler.Scorer) (crawler.Summary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return crawler.Summary{}, err
	}
	db := filepath.Join(dir, "scent.db")
	store, err := openStore(ctx, db)
	if err != nil {
		return crawler.Summary{}, err
	}
	defer store.Close()
	c, err := crawler.New(cfg, store, g.fetcher, sc)
	if err != nil {
		return crawler.Summary{}, err
	}
	sum, err := c.Run(ctx, seeds, RecordedSettings(cfg, map[string]any{"experiment": "grid cell"}))
	if err != nil {
		return sum, err
	}
	if g.o.Keep {
		if err := writeFileAtomic(filepath.Join(dir, "pages.jsonl"), func(w *os.File) error {
			return ExportJSONL(ctx, db, cfg.Name, ReadOptions{}, ExportOptions{}, w)
		}); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// bfsCrawl runs the breadth-first crawl of c's crawl seeds once; topic
// sets with the same crawl seeds share it.
func (g *gridRun) bfsCrawl(ctx context.Context, c gridCell) (bfsCrawl, error) {
	seeds := g.seeds[report.TopicSet(c.topics)].Crawl
	key := fmt.Sprint(seeds)
	if b, ok := g.bfs[key]; ok {
		return b, nil
	}
	start := time.Now()
	name := c.name()
	dir := filepath.Join(g.work, "cells", name)
	sum, err := g.crawl(ctx, dir, seeds, crawler.Config{Name: name, Strategy: crawler.StrategyBFS, Workers: g.o.Workers,
		MaxPages: g.o.Budget, Segment: g.segment(c.window)}, nil)
	if err != nil {
		return bfsCrawl{}, err
	}
	b := bfsCrawl{db: filepath.Join(dir, "scent.db"), name: name, sum: sum, seconds: time.Since(start).Seconds()}
	g.bfs[key] = b
	return b, nil
}

// model returns the model of c, training it on first use.
func (g *gridRun) model(ctx context.Context, c gridCell) (*trained, error) {
	key := c.model()
	if m, ok := g.models[key]; ok {
		return m, nil
	}
	seeds := g.seeds[key.topics]
	var src training.BacklinkSource
	var rec *training.BacklinkRecorder
	if key.backlinks {
		store, err := g.backlinks(ctx, key.topics, c.window, seeds.DiscoverySeeds())
		if err != nil {
			return nil, err
		}
		rec = training.NewBacklinkRecorder(store)
		src = rec
	}
	mf := g.o.Model
	mf.K, mf.Window, mf.Threshold, mf.CVThresholds = c.k, c.window, g.trainTh, g.cvThresholds()
	model, rep, err := TrainModelWith(ctx, seeds, g.examples, &mf, io.Discard, src)
	if err != nil {
		return nil, fmt.Errorf("train %s, K %d, n %d: %w", key.topics, key.k, key.window, err)
	}
	if g.o.Keep {
		base := filepath.Join(g.work, "models", fmt.Sprintf("%s-k%d-n%d", key.topics, key.k, key.window))
		if key.backlinks {
			base += "-backlinks"
		}
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			return nil, err
		}
		if err := SaveModel(base+".json", model); err != nil {
			return nil, err
		}
		if err := writeJSONFile(base+".train.json", rep); err != nil {
			return nil, err
		}
	}
	learnt, err := LearntOf(ctx, seeds, &mf, rec)
	if err != nil {
		return nil, err
	}
	m := &trained{scorer: training.NewScorer(model), rep: rep, learnt: learnt}
	g.models[key] = m
	return m, nil
}

// backlinks returns the store of the breadth-first discovery crawl whose
// links give the backlink features of a topic set at a window, running it
// on first use from the sites of the examples (Seeds.DiscoverySeeds).
func (g *gridRun) backlinks(ctx context.Context, topics string, window int, seeds []urlnorm.URL) (*sqlite.Store, error) {
	key := fmt.Sprintf("%s-n%d", topics, window)
	if st, ok := g.discovery[key]; ok {
		return st, nil
	}
	dir := filepath.Join(g.work, "discovery", key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	store, err := openStore(ctx, filepath.Join(dir, "scent.db"))
	if err != nil {
		return nil, err
	}
	dcfg := crawler.Config{Name: "discovery", Strategy: crawler.StrategyBFS, Workers: g.o.Workers,
		MaxPages: g.o.Discovery, Segment: g.segment(window)}
	dc, err := crawler.New(dcfg, store, g.fetcher, nil)
	if err != nil {
		store.Close()
		return nil, err
	}
	if _, err := dc.Run(ctx, seeds, RecordedSettings(dcfg, map[string]any{"experiment": "backlink discovery"})); err != nil {
		store.Close()
		return nil, fmt.Errorf("discovery crawl: %w", err)
	}
	g.discovery[key] = store
	return store, nil
}

// RunGrid runs every experiment of o with one replay server and one
// fetcher, and writes the cells' reports and the combined report
// (report.json, .md, .csv, .html) into o.Out. A rerun into the same
// folder with the same settings runs only the cells still missing.
func RunGrid(ctx context.Context, o Grid, stdout, progress io.Writer) (*report.Grid, error) {
	cells, err := o.cells()
	if err != nil {
		return nil, err
	}
	return runGrid(ctx, o, cells, stdout, progress)
}

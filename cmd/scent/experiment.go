package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
)

// experimentSettings are what every crawl of an experiment shares, one
// run or a grid.
type experimentSettings struct {
	siteNorm  bool // --site-norm
	archive   string
	out       string
	group     string
	budget    int
	workers   int
	tunnel    bool
	discovery int
	oracle    bool
	hubOracle bool
	promote   bool
	sections  bool
	lockstep  bool
	learn     bool
	skipEx    bool
	learnOpts learn.Options
	negatives string
	// pageNegatives, when it differs from negatives, trains a second
	// model with these negatives to judge pages.
	pageNegatives string
	preset        string
	baseline      bool
	mf            modelFlags
}

// learning sets cfg's link learner (--learn) and the URLs it never
// fetches (--skip-examples: the pages the model learnt from).
func (o experimentSettings) learning(cfg *crawler.Config, seeds *training.Seeds, sc crawler.Scorer) error {
	if o.skipEx && cfg.Strategy != crawler.StrategyBFS {
		cfg.Known = seeds.Examples()
	}
	if !o.learn || cfg.Strategy == crawler.StrategyBFS {
		return nil
	}
	l, err := learn.New(sc.Topics(), o.learnOpts)
	cfg.Learner = l
	return err
}

// experimentOpts are the flags of scent experiment: the shared settings
// and the lists a grid is made of.
type experimentOpts struct {
	experimentSettings
	topics     []string // one topic set per value, its topics separated by commas
	strategies []string
	frontiers  []string
	ks         []string
	windows    []string
	thresholds []string
	keep       bool
}

func newExperimentCmd() *cobra.Command {
	var o experimentOpts
	cmd := &cobra.Command{
		Use:   "experiment ARCHIVE --topic T --strategy S --budget N --out DIR",
		Short: "Replay a labelled collection and run train → crawl → export → report in one go, or a grid of such runs",
		Long: `experiment serves ARCHIVE on loopback, writes a seed file (examples: pages of
--group labelled with the topics; negatives: "other" pages of --group; crawl
seeds: the four department home pages), trains the model through the replay,
crawls with politeness off up to --budget fetches and writes into DIR:
seeds.txt, labels.tsv (labels of the pages reachable from the seeds),
model.json, train.json, trained.txt (the pages the model learnt from: its
examples and the parents of its backlink segments), scent.db, pages.jsonl
(the export), report.json and report.md (the report, with the crawl's
pages_per_second) and command (this command line).

Recall counts held-out targets: the labelled pages reachable from the seeds
minus every page of trained.txt (fetching one costs budget and finds
nothing). The report gives recall at 250 … 4,000 pages and the pages (and
fetches, failed included) to 25, 50 and 75 % of the held-out targets,
beside breadth-first's and the all-knowing greedy plan's, and the speed-up
over breadth-first (--baseline): breadth-first is a crawl of every page
reachable from the seeds, run once per collection and seeds and kept in the
user's cache folder; its first N pages are a breadth-first crawl of budget N.
The old figure over all labels stays as recall_all_labels.

Given lists, it runs a grid: every repeated --topic is one crawl's topic set
(a value with commas is one crawl of several topics), and --strategy,
--frontier, --k, --window and --threshold take comma-separated lists; a
crawl runs for every combination (bfs once per topic set: it has no
classifier). A model is trained once per topic set, K and window and shared
by the strategies, frontiers and thresholds. DIR then holds command,
cells/<cell>/report.json per crawl, and the combined report.json, report.md,
report.csv and report.html with harvest curves and recall and classifier
quality against K and the window; the crawls' databases go to a temporary
folder, removed at the end unless --keep. A finished cell is kept in
cells/<cell>/cell.json: rerunning an interrupted grid into the same DIR with
the same settings (archive, budget, workers, model and crawl options) runs
only the cells still missing; with other settings it starts over.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.archive = args[0]
			if err := applyPreset(cmd.Flags(), o.preset); err != nil {
				return err
			}
			if o.learn && (o.tunnel || o.promote) {
				return errors.New("--tunnel and --promote steer the paper's stacks, but the link learner (on by default) keeps every link on them: add --learn=false or --preset paper")
			}
			if err := o.validate(); err != nil {
				return err
			}
			cells, err := o.cells()
			if err != nil {
				return err
			}
			if len(cells) > 1 {
				_, err := runGrid(cmd.Context(), o, cells, cmd.OutOrStdout(), cmd.ErrOrStderr())
				if err != nil && cmd.Context().Err() != nil {
					return resumable{err}
				}
				return err
			}
			rep, err := runExperiment(cmd.Context(), o.single(cells[0]), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			writeSummary(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.topics, "topic", nil, "topics to learn and crawl for: course, or course,faculty for one crawl of both; repeat for a crawl per value")
	fs.StringVar(&o.group, "group", "misc", "group whose labelled pages train the model")
	fs.StringSliceVar(&o.strategies, "strategy", []string{"link"}, "link, link+backlinks, page or bfs (a comma-separated list runs each)")
	fs.StringSliceVar(&o.frontiers, "frontier", []string{"stack"}, "stack or best-first (a list runs each)")
	fs.StringSliceVar(&o.ks, "k", []string{strconv.Itoa(classify.DefaultK)}, "number of features kept by χ² (a list runs each)")
	fs.StringSliceVar(&o.windows, "window", []string{"10"}, "tokens of context on each side of a link (a list runs each)")
	fs.StringSliceVar(&o.thresholds, "threshold", []string{strconv.FormatFloat(classify.DefaultThreshold, 'g', -1, 64)}, "on-topic threshold of P(topic|link) (a list runs each)")
	fs.IntVar(&o.budget, "budget", 1000, "pages fetched successfully per crawl; failed fetches do not count (0: no limit)")
	fs.IntVar(&o.workers, "workers", 16, "pages fetched at once")
	fs.BoolVar(&o.tunnel, "tunnel", false, "when a topic's stack runs empty, go on from its off-topic links, shallowest first")
	fs.BoolVar(&o.lockstep, "lockstep", true, "fetch in rounds of --workers pages, each committed in order before the next, so that an experiment repeats exactly whatever the timing; --lockstep=false fetches whenever a worker is free, as scent crawl does by default")
	fs.BoolVar(&o.sections, "sections", true, "treat an on-topic page as a compound document: links into its directory (/cs100/ for /cs100/, /cs100/index.html or /cs100/cs100.html; /x/cs100/ for /x/cs100.html) wait until the stack (and with --tunnel the reserve) is spent, or are dropped")
	fs.BoolVar(&o.promote, "promote", false, "with --tunnel: once most pages fetched through a page's links are on-topic, move its other links from the reserve to the stack")
	fs.StringVar(&o.negatives, "negatives", "other", `negative examples: the pages of --group labelled "other", or "rest": every page of --group not labelled with a topic`)
	fs.Float64Var(&o.learnOpts.RewardAt, "learn-reward", 0, "with --learn: the page score at which a fetched page rewards the links that led to it (0: per topic, where the cross-validated page F1 is best; 0.5 without cross-validation)")
	fs.Float64Var(&o.learnOpts.Gamma, "learn-gamma", learn.DefaultGamma, "with --learn: the weight of a link's value that comes from the pages beyond its target")
	fs.StringVar(&o.pageNegatives, "page-negatives", "rest", `negative examples of a second model that judges fetched pages: other or rest ("" or the same as --negatives: one model for links and pages)`)
	fs.BoolVar(&o.skipEx, "skip-examples", true, "never fetch the pages the model learnt from (they are in hand); bfs fetches them")
	fs.BoolVar(&o.learn, "learn", true, "learn the value of links from the crawl's own pages and serve every link best first by it")
	fs.StringVar(&o.preset, "preset", "", `"paper": the paper's crawler (no learner, no sections, no example skipped, one model), for the settings not given`)
	fs.IntVar(&o.discovery, "discovery", 1000, "pages of the breadth-first discovery crawl from the examples' sites that finds backlinks (strategy link+backlinks)")
	fs.BoolVar(&o.oracle, "oracle", false, "score links by their target's label instead of the model (1 on-topic, 0 off): what a perfect link classifier reaches")
	fs.BoolVar(&o.hubOracle, "hub-oracle", false, "score 1 the links to the topic's hubs, the pages that link to a page labelled with the topic (the rest as the model, or as --oracle): what knowing every hub is worth")
	fs.StringVar(&o.out, "out", "", "output directory")
	fs.BoolVar(&o.baseline, "baseline", true, "measure breadth-first (a crawl of every page reachable from the seeds, run once per collection and kept in the user's cache folder) and the all-knowing plan on the same held-out targets, and the speed-up over breadth-first")
	fs.BoolVar(&o.siteNorm, "site-norm", false, "site-based URL normalization: measure which extended normalizations (EN1–EN6) each host tolerates, within 5 % of the fetches, and apply those it adopts to the URLs pushed; writes normalize.md and normalize.json")
	fs.BoolVar(&o.keep, "keep", false, "grid: keep the crawls' databases, exports and models (their folder is printed)")
	o.mf.registerFixed(fs)
	return cmd
}

// singleExperiment is one train → crawl → report run.
type singleExperiment struct {
	experimentSettings
	topics   []string
	strategy string
	frontier string
}

// single returns the run of cell c.
func (o experimentOpts) single(c gridCell) singleExperiment {
	s := singleExperiment{experimentSettings: o.experimentSettings, topics: c.topics, strategy: string(c.strategy), frontier: string(c.frontier)}
	if s.frontier == "" {
		s.frontier = string(crawler.FrontierStack)
	}
	s.mf.k, s.mf.window, s.mf.threshold = c.k, c.window, c.threshold
	return s
}

func runExperiment(ctx context.Context, o singleExperiment, progress io.Writer) (*report.Report, error) {
	if o.out == "" || len(o.topics) == 0 {
		return nil, fmt.Errorf("--out and --topic are required")
	}
	strategy, err := crawler.ParseStrategy(o.strategy)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.out, "command"), func(f *os.File) error {
		_, err := fmt.Fprintln(f, shellJoin(os.Args))
		return err
	}); err != nil {
		return nil, err
	}
	a, ff, stop, err := replayOnLoopback(ctx, o.archive)
	if err != nil {
		return nil, err
	}
	defer stop()

	seedPath := filepath.Join(o.out, "seeds.txt")
	if err := writeFileAtomic(seedPath, func(f *os.File) error { return writeSeeds(f, a, o.topics, o.group, o.negatives) }); err != nil {
		return nil, err
	}
	labelPath := filepath.Join(o.out, "labels.tsv")
	if err := writeReachableLabels(labelPath, a); err != nil {
		return nil, err
	}

	seeds, err := training.LoadSeeds(seedPath)
	if err != nil {
		return nil, err
	}
	dbPath := filepath.Join(o.out, "scent.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	f, err := fetch.New(ff.config())
	if err != nil {
		return nil, err
	}
	defer f.Close()

	// link+backlinks: a short breadth-first discovery crawl from the
	// examples' sites stores links; those pointing at the examples become
	// training documents of their class.
	var src training.BacklinkSource
	var rec *training.BacklinkRecorder
	if strategy == crawler.StrategyLinkBacklinks {
		dc, err := crawler.New(crawler.Config{Name: "discovery", Strategy: crawler.StrategyBFS, Workers: o.workers,
			MaxPages: o.discovery, Segment: o.mf.segment()}, store, f, nil)
		if err != nil {
			return nil, err
		}
		dsum, err := dc.Run(ctx, seeds.DiscoverySeeds(), fmt.Sprintf(`{"discovery":%d}`, o.discovery))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "discovery crawl: %d pages\n", dsum.Succeeded)
		rec = training.NewBacklinkRecorder(store)
		src = rec
	}
	start := time.Now()
	if o.learn && o.learnOpts.RewardAt == 0 && o.mf.folds >= 2 {
		o.mf.cvThresholds = withRewardGrid(o.mf.cvThresholds)
	}
	model, trep, err := trainModel(ctx, seeds, &ff, &o.mf, progress, src)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "trained in %s\n", time.Since(start).Round(time.Millisecond))
	if err := saveModel(filepath.Join(o.out, "model.json"), model); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(o.out, "train.json"), trep); err != nil {
		return nil, err
	}
	// --page-negatives: a second model judges pages; its negatives are
	// pages learnt from too.
	var pageModel *classify.Model
	if o.pageNegatives != "" && o.pageNegatives != o.negatives {
		var known []training.Source
		pageModel, trep, known, err = o.trainPageModel(ctx, a, &ff, progress)
		if err != nil {
			return nil, err
		}
		seeds.Other = append(seeds.Other, known...)
	}
	learnt, err := learntOf(ctx, seeds, &o.mf, rec)
	if err != nil {
		return nil, err
	}
	if err := writeTrained(filepath.Join(o.out, trainedFile), learnt); err != nil {
		return nil, err
	}

	cfg := crawler.Config{Name: "experiment", Strategy: strategy, Frontier: crawler.Frontier(o.frontier),
		Workers: o.workers, MaxPages: o.budget, Segment: o.mf.segment(), Tunnel: o.tunnel, Promote: o.promote, Sections: o.sections, Lockstep: o.lockstep}
	if o.siteNorm {
		cfg.SiteNorm = sitenorm.NewRules(sitenorm.Policy{})
	}
	if isTerminal(os.Stderr) {
		cfg.Progress = progressLine(progress)
	}
	var scorer crawler.Scorer = training.NewScorer(model)
	if pageModel != nil {
		scorer = pageScorer{Scorer: scorer, page: training.NewScorer(pageModel)}
	}
	if o.oracle || o.hubOracle {
		scorer = newOracleScorer(scorer, a, o.oracle, o.hubOracle)
	}
	if o.learn && o.learnOpts.RewardAt == 0 {
		o.learnOpts.Rewards = rewardThresholds(trep, scorer.Topics())
		fmt.Fprintf(progress, "learner reward thresholds (best cross-validated page F1): %v\n", o.learnOpts.Rewards)
	}
	if err := o.learning(&cfg, seeds, scorer); err != nil {
		return nil, err
	}
	c, err := crawler.New(cfg, store, f, scorer)
	if err != nil {
		return nil, err
	}
	sum, err := c.Run(ctx, seeds.Crawl, fmt.Sprintf(`{"strategy":%q,"budget":%d}`, o.strategy, o.budget))
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.out, "pages.jsonl"), func(w *os.File) error {
		return exportJSONL(ctx, dbPath, "experiment", w)
	}); err != nil {
		return nil, err
	}
	if o.siteNorm {
		if err := runNormEval(ctx, io.Discard, dbPath, "experiment", o.out, false); err != nil {
			return nil, err
		}
	}
	rep, err := buildReportThreshold(ctx, dbPath, "experiment", labelPath, 100, o.topics, report.ScopeAllLabels, nil, learnt)
	if err != nil {
		return nil, err
	}
	if o.baseline {
		b, err := newBaselines(ctx, a, o.archive, seeds.Crawl, labelPath, f, o.workers)
		if err != nil {
			return nil, err
		}
		b.apply(rep, learnt)
	}
	rep.PagesPerSecond = sum.PagesPerSec
	rep.FetchesPerSecond = sum.FetchesPerSec
	if err := writeFileAtomic(filepath.Join(o.out, "report.json"), func(w *os.File) error { return rep.WriteJSON(w) }); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.out, "report.md"), func(w *os.File) error { return rep.WriteMarkdown(w) }); err != nil {
		return nil, err
	}
	return rep, nil
}

func writeJSONFile(path string, v any) error {
	return writeFileAtomic(path, func(f *os.File) error {
		enc := jsonIndent(f)
		return enc.Encode(v)
	})
}

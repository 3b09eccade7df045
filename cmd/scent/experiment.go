package main

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/training"
)

// newExperimentCmd builds "scent experiment": flags into an
// experiment.Grid, run as one experiment or as a grid.
func newExperimentCmd() *cobra.Command {
	var (
		o  experiment.Grid
		pf policyFlags
		mf modelFlags
	)
	cmd := &cobra.Command{
		Use:   "experiment ARCHIVE --topic T --strategy S --budget N --out DIR",
		Short: "Replay a labelled collection and run train → crawl → export → report in one go, or a grid of such runs",
		Long: `experiment serves ARCHIVE on loopback, writes a seed file (examples: pages of
--group labelled with the topics, by default of the collection's one group
that is not a site, in WebKB misc; negatives: "other" pages of --group; crawl
seeds: the --seed URLs, or else the home pages of the collection's sites,
in WebKB the four department home pages), trains the model through the replay,
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
the combined report.json, report.md,
report.csv and report.html with harvest curves and recall and classifier
quality against K and the window; the crawls' databases go to a temporary
folder, removed at the end unless --keep. A finished cell is kept in
cells/<cell>/cell.json: rerunning an interrupted grid into the same DIR with
the same settings (every option but --out and the grid's lists, and the
same archive file) runs only the cells still missing; with other settings
it starts over.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := pf.apply(cmd.Flags()); err != nil {
				return err
			}
			o.Archive, o.Command, o.Model = args[0], shellJoin(os.Args), mf.Settings
			o.Workers, o.Tunnel, o.Promote, o.Sections, o.Lockstep, o.Overlap, o.SiteNorm, o.Survey, o.Speculate = pf.workers, pf.tunnel, pf.promote, pf.sections, pf.lockstep, pf.overlap, pf.siteNorm, pf.survey, pf.speculate
			o.Learn, o.SkipExamples, o.LearnOptions = pf.learn, pf.skipExamples, learn.Options{RewardAt: pf.reward, Gamma: pf.gamma}
			o.LearnPrior = pf.prior
			if err := o.Validate(); err != nil {
				return err
			}
			specs, err := o.Specs()
			if err != nil {
				return err
			}
			if created := experiment.NewFolder(o.Out); created != "" {
				defer func() {
					if err != nil {
						removeFailedOut(created, o.Out)
					}
				}()
			}
			if len(specs) > 1 {
				_, err := experiment.RunGrid(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
				if err != nil && cmd.Context().Err() != nil {
					return resumable{err}
				}
				return err
			}
			if isTerminal(os.Stderr) {
				specs[0].CrawlProgress = progressLine(cmd.ErrOrStderr())
			}
			rep, err := experiment.Run(cmd.Context(), specs[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			experiment.WriteSummary(cmd.OutOrStdout(), rep)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.TopicSets, "topic", nil, "topics to learn and crawl for: course, or course,faculty for one crawl of both; repeat for a crawl per value")
	fs.StringVar(&o.Group, "group", "", "group whose labelled pages train the model (default: the collection's one group that is not a site; in WebKB, misc)")
	fs.StringArrayVar(&o.Seeds, "seed", nil, seedUsage)
	fs.StringSliceVar(&o.Strategies, "strategy", []string{"link"}, "link, link+backlinks, page or bfs (a comma-separated list runs each)")
	fs.StringSliceVar(&o.Frontiers, "frontier", []string{"stack"}, "stack or best-first (a list runs each)")
	fs.StringSliceVar(&o.Ks, "k", []string{strconv.Itoa(classify.DefaultK)}, "number of features kept by χ² (a list runs each)")
	fs.StringSliceVar(&o.Windows, "window", []string{"10"}, "tokens of context on each side of a link (a list runs each)")
	fs.StringSliceVar(&o.Thresholds, "threshold", []string{strconv.FormatFloat(classify.DefaultThreshold, 'g', -1, 64)}, "on-topic threshold of P(topic|link) (a list runs each)")
	fs.IntVar(&o.Budget, "budget", 1000, "pages fetched successfully per crawl; failed fetches do not count (0: no limit)")
	fs.StringVar(&o.Negatives, "negatives", "", `negative examples: the pages of --group labelled "other", or "rest": every page of --group not labelled with a topic (default: other, or rest when no page of --group is labelled other)`)
	fs.StringVar(&o.PageNegatives, "page-negatives", "labels", `negative examples of a second model that judges fetched pages: other, rest, or labels (every other page of --group as an example of its own label, so that the model tells the topic from each kind of page; "" or the same as --negatives: one model for links and pages)`)
	fs.StringVar(&o.PageDocuments, "page-documents", string(experiment.DefaultPageDocuments), "training documents of the page model: pages, windows, pages+windows, links or windows+links")
	fs.Float64Var(&o.PagePriorMix, "page-prior-mix", experiment.DefaultPagePriorMix, "share, in [0, 1), by which the page model's class priors are shrunk toward uniform, so that a label with few training pages is not judged by its share of --group")
	o.PageAbsentDiscount = training.AutoAbsentDiscount
	fs.Var(absentDiscountFlag{&o.PageAbsentDiscount}, "page-absent-discount", `share, in [0, 1], by which the page model discounts the evidence of the selected words a page lacks, so that a page of another site is not judged by the words its training pages share; "auto": the chance that two of its training pages are on the same host (near 0 when they come from many sites, 1 when from one)`)
	fs.IntVar(&o.Discovery, "discovery", 1000, "pages of the breadth-first discovery crawl from the examples' sites that finds backlinks (strategy link+backlinks)")
	fs.BoolVar(&o.Oracle, "oracle", false, "score links by their target's label instead of the model (1 on-topic, 0 off): what a perfect link classifier reaches")
	fs.BoolVar(&o.HubOracle, "hub-oracle", false, "score 1 the links to the topic's hubs, the pages that link to a page labelled with the topic (the rest as the model, or as --oracle): what knowing every hub is worth")
	fs.StringVar(&o.Out, "out", "", "output directory")
	fs.BoolVar(&o.Baseline, "baseline", true, "measure breadth-first (a crawl of every page reachable from the seeds, run once per collection and kept in the user's cache folder) and the all-knowing plan on the same held-out targets, and the speed-up over breadth-first")
	fs.BoolVar(&o.Keep, "keep", false, "grid: keep the crawls' databases, exports and models (their folder is printed)")
	mf.registerFixed(fs)
	pf.register(fs, true)
	setFlagGroup(fs, "input", "topic", "group", "negatives", "page-negatives", "page-documents", "page-prior-mix", "page-absent-discount")
	setFlagGroup(fs, "budget", "budget", "discovery")
	setFlagGroup(fs, "grid", "strategy", "frontier", "k", "window", "threshold", "keep")
	setFlagGroup(fs, "output", "out", "baseline")
	setFlagGroup(fs, "research", "oracle", "hub-oracle")
	return cmd
}

// removeFailedOut removes created, the folder that a failed experiment
// created to make its output folder out, unless the experiment got as far
// as crawling: out then holds its crawl's database (scent.db, kept for a
// look at what an interrupted crawl fetched) or a finished cell of a
// grid (cells/<cell>/cell.json, which a rerun of the grid keeps).
func removeFailedOut(created, out string) {
	if _, err := os.Stat(filepath.Join(out, "scent.db")); err == nil {
		return
	}
	if cells, _ := filepath.Glob(filepath.Join(out, "cells", "*", "*")); len(cells) > 0 {
		return
	}
	os.RemoveAll(created)
}

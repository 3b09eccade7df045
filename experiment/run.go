package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/webkb"
)

// Run runs one experiment: it serves the collection on loopback, writes
// a seed file of its examples, trains the model through the replay,
// crawls, and writes into o.Out the seeds, the labels of the reachable
// pages, the model and its training report, the pages learnt from, the
// database, its export and the report (report.json, report.md), which it
// returns. progress receives what is being done.
func Run(ctx context.Context, o Spec, progress io.Writer) (*report.Report, error) {
	if o.Out == "" || len(o.Topics) == 0 {
		return nil, fmt.Errorf("--out and --topic are required")
	}
	// A topic given by its label ("Course") is named as the seed file
	// names it (classify.NameOf) from here on: the crawl's topic, its
	// report's.
	o.Topics = slices.Clone(o.Topics)
	for i, t := range o.Topics {
		if t = strings.TrimSpace(t); t != "" {
			o.Topics[i] = classify.NameOf(t)
		}
	}
	strategy := o.Strategy
	if _, err := crawler.ParseStrategy(string(strategy)); err != nil {
		return nil, err
	}
	if o.Frontier == "" {
		o.Frontier = crawler.FrontierStack
	}
	a, fc, starts, stop, err := o.serve(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer stop()
	// The seed file and the labels are made before the output folder: a
	// collection that cannot give them leaves none.
	var seedText, labelText bytes.Buffer
	renamed, err := webkb.WriteSeeds(&seedText, a, starts, o.Topics, o.Group, o.Negatives)
	if err != nil {
		return nil, err
	}
	if err := webkb.WriteReachableLabels(&labelText, a, starts); err != nil {
		return nil, err
	}
	if err := makeOut(o.Out); err != nil {
		return nil, err
	}
	if err := clearReports(o.Out); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.Out, "command"), func(f *os.File) error {
		_, err := fmt.Fprintln(f, o.Command)
		return err
	}); err != nil {
		return nil, err
	}
	seedPath := filepath.Join(o.Out, "seeds.txt")
	if err := writeFileAtomic(seedPath, func(f *os.File) error { _, err := f.Write(seedText.Bytes()); return err }); err != nil {
		return nil, err
	}
	tellRenamed(progress, renamed, seedPath)
	labelPath := filepath.Join(o.Out, "labels.tsv")
	if err := writeFileAtomic(labelPath, func(f *os.File) error { _, err := f.Write(labelText.Bytes()); return err }); err != nil {
		return nil, err
	}

	seeds, err := training.LoadSeeds(seedPath)
	if err != nil {
		return nil, err
	}
	dbPath := filepath.Join(o.Out, "scent.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	store, err := openStore(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	f, err := fetch.New(fc)
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
		dcfg := crawler.Config{Name: "discovery", Strategy: crawler.StrategyBFS, Workers: o.Workers,
			MaxPages: o.Discovery, Segment: o.Model.Segment()}
		dc, err := crawler.New(dcfg, store, f, nil)
		if err != nil {
			return nil, err
		}
		dsum, err := dc.Run(ctx, seeds.DiscoverySeeds(), RecordedSettings(dcfg, map[string]any{"experiment": "backlink discovery"}))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "discovery crawl: %d pages\n", dsum.Succeeded)
		rec = training.NewBacklinkRecorder(store)
		src = rec
	}
	start := time.Now()
	if o.Learn && o.LearnOptions.RewardAt == 0 && o.Model.Folds >= 2 {
		o.Model.CVThresholds = WithRewardGrid(o.Model.CVThresholds)
	}
	// The model, the page model and the learner's prior read the same
	// training pages: each is fetched once (released once the prior is
	// counted, or when the experiment ends).
	examples := NewFetchCache(f)
	defer examples.Release()
	model, trep, err := TrainModelWith(ctx, seeds, examples, &o.Model, progress, src)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "trained in %s\n", time.Since(start).Round(time.Millisecond))
	if err := SaveModel(filepath.Join(o.Out, "model.json"), model); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(o.Out, "train.json"), trep); err != nil {
		return nil, err
	}
	// --page-negatives: a second model judges pages; its negatives are
	// pages learnt from too.
	var pageModel *classify.Model
	if o.PageNegatives != "" && o.PageNegatives != o.Negatives {
		var known []training.Source
		pageModel, trep, known, err = o.trainPageModel(ctx, a, starts, examples, progress)
		if err != nil {
			return nil, err
		}
		seeds.Other = append(seeds.Other, known...)
	}
	learnt, err := LearntOf(ctx, seeds, &o.Model, rec)
	if err != nil {
		return nil, err
	}
	if err := WriteTrained(filepath.Join(o.Out, TrainedFile), learnt); err != nil {
		return nil, err
	}

	cfg := crawler.Config{Name: "experiment", Strategy: strategy, Frontier: o.Frontier,
		Workers: o.Workers, MaxPages: o.Budget, Segment: o.Model.Segment(), Tunnel: o.Tunnel, Promote: o.Promote, Sections: o.Sections, Lockstep: o.Lockstep, Overlap: o.Overlap, Speculate: o.Speculate, Survey: o.Survey}
	if o.SiteNorm {
		cfg.SiteNorm = sitenorm.NewRules(sitenorm.Policy{})
	}
	cfg.Progress = o.CrawlProgress
	cfg.Learnt = learnt
	var scorer crawler.Scorer = training.NewScorer(model)
	if pageModel != nil {
		if scorer, err = newPageScorer(scorer, training.NewScorer(pageModel)); err != nil {
			return nil, err
		}
	}
	if o.Oracle || o.HubOracle {
		scorer = newOracleScorer(scorer, a, o.Oracle, o.HubOracle)
	}
	if o.Learn && o.LearnOptions.RewardAt == 0 {
		o.LearnOptions.Rewards = RewardThresholds(trep, scorer.Topics())
		fmt.Fprintf(progress, "learner reward thresholds (best cross-validated page F1): %v\n", o.LearnOptions.Rewards)
	}
	if err := o.learning(&cfg, seeds, scorer, examples, examples.Release, progress); err != nil {
		return nil, err
	}
	if cfg.Learner == nil || o.LearnPrior <= 0 {
		examples.Release() // no prior to read them
	}
	c, err := crawler.New(cfg, store, f, scorer)
	if err != nil {
		return nil, err
	}
	sum, err := c.Run(ctx, seeds.Crawl, RecordedSettings(cfg, map[string]any{"experiment": "single"}))
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.Out, "pages.jsonl"), func(w *os.File) error {
		return ExportJSONL(ctx, dbPath, "experiment", ReadOptions{}, ExportOptions{}, w)
	}); err != nil {
		return nil, err
	}
	if o.SiteNorm {
		if err := NormEval(ctx, io.Discard, dbPath, "experiment", o.Out, false); err != nil {
			return nil, err
		}
	}
	rep, err := Measure(ctx, dbPath, "experiment", ReadOptions{}, labelPath, 100, o.Topics, report.ScopeAllLabels, nil, learnt)
	if err != nil {
		return nil, err
	}
	if o.Baseline {
		b, err := newBaselines(ctx, a, o.Archive, seeds.Crawl, labelPath, f, o.Workers)
		if err != nil {
			return nil, err
		}
		b.apply(rep, learnt)
	}
	rep.PagesPerSecond = sum.PagesPerSec
	rep.FetchesPerSecond = sum.FetchesPerSec
	rep.Seconds, rep.BetweenRoundsSeconds = sum.Elapsed.Seconds(), sum.BetweenRounds.Seconds()
	rep.Guessed, rep.Discarded = sum.Guessed, sum.Discarded
	if err := writeFileAtomic(filepath.Join(o.Out, "report.json"), func(w *os.File) error { return rep.WriteJSON(w) }); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(o.Out, "report.md"), func(w *os.File) error { return rep.WriteMarkdown(w) }); err != nil {
		return nil, err
	}
	return rep, nil
}

// reportFiles are what a run writes into its folder once it is done.
var reportFiles = []string{"report.json", "report.md", "report.csv", "report.html"}

// clearReports removes an earlier run's reports from dir before a run
// writes its command there: a report is never left beside a command it
// does not come from (scent results reads them as a pair).
func clearReports(dir string) error {
	for _, name := range reportFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the earlier run's %s: %w", name, err)
		}
	}
	return nil
}

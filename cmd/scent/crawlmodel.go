package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
)

// crawlScorer returns the scorer of a crawl and the path of its model:
// the model of --model or beside the database, else one trained from the
// seed file's examples (and kept beside the database, with its training
// report), else none for bfs.
func crawlScorer(cmd *cobra.Command, cf *crawlFlags, seeds *training.Seeds, strategy crawler.Strategy) (string, crawler.Scorer, *training.Report, error) {
	ctx := cmd.Context()
	modelPath := cf.model
	if modelPath == "" {
		modelPath = cf.db + ".model.json"
	}
	var scorer crawler.Scorer
	var trep *training.Report // when the model is trained here
	if m, err := loadModel(modelPath); err == nil {
		if err := applyThreshold(cmd, m, cf.mf.Threshold, cmd.ErrOrStderr()); err != nil {
			return "", nil, nil, err
		}
		scorer = training.NewScorer(m)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", nil, nil, err
	} else if cf.model != "" {
		return "", nil, nil, fmt.Errorf("model %s: %w", cf.model, err)
	} else if len(seeds.Topics) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s …\n", cf.seeds)
		var src training.BacklinkSource
		if strategy == crawler.StrategyLinkBacklinks && cf.mf.BacklinkDB == "" {
			// Earlier crawls in the same database know links to the examples.
			if _, err := os.Stat(cf.db); err == nil {
				store, err := sqlite.Open(ctx, cf.db)
				if err != nil {
					return "", nil, nil, err
				}
				defer store.Close()
				src = store
			}
		}
		if cf.pf.learn && cf.pf.reward == 0 && cf.mf.Folds >= 2 {
			cf.mf.CVThresholds = experiment.WithRewardGrid(cf.mf.CVThresholds)
		}
		m, rep, err := trainModel(ctx, seeds, &cf.ff, &cf.mf, cmd.ErrOrStderr(), src)
		if err != nil {
			return "", nil, nil, err
		}
		trep = rep
		printTrainReport(cmd.ErrOrStderr(), rep)
		if err := saveModel(modelPath, m); err != nil {
			return "", nil, nil, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "model written to %s\n", modelPath)
		scorer = training.NewScorer(m)
	} else if strategy != crawler.StrategyBFS {
		return "", nil, nil, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
	}
	return modelPath, scorer, trep, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// crawlModel is the model of a crawl: its path (or where a PostgreSQL
// database keeps it), its scorer, the pages the crawl learns from (its
// model's and the seed file's training pages) and, for a model trained
// here, save, which writes it and its list of pages beside the database
// once the crawl is opened (so that a crawl refused, as one another
// process runs, writes nothing).
type crawlModel struct {
	path   string
	scorer crawler.Scorer
	learnt []urlnorm.URL
	save   func() error
}

// modelPathFor is where scent crawl keeps the model of crawl name in
// database db: DB.model.json for the default crawl, DB.NAME.model.json
// (NAME path-escaped) for another, so that each crawl of a database has
// its own.
func modelPathFor(db, name string) string {
	if name == "" || name == "default" {
		return db + ".model.json"
	}
	return db + "." + url.PathEscape(name) + ".model.json"
}

// sameTopics refuses a model whose topics are not those the seed file
// has examples of (a seed file of crawl seeds alone goes with any model):
// the crawl would follow another topic, and count the seed file's
// examples as pages it learnt from.
func sameTopics(m *classify.Model, seeds *training.Seeds, cf *crawlFlags, modelPath string) error {
	if len(seeds.Topics) == 0 {
		return nil
	}
	have, want := slices.Sorted(slices.Values(m.Topics())), slices.Sorted(slices.Values(seeds.Topics))
	if slices.Equal(have, want) {
		return nil
	}
	if cf.model != "" {
		return fmt.Errorf("model %s is a model of %s, but the seed file %s has examples of %s: give the model trained from this seed file, or a seed file of its topics",
			modelPath, strings.Join(have, ", "), cf.seeds, strings.Join(want, ", "))
	}
	return fmt.Errorf("%s, the model of crawl %q, is a model of %s, but the seed file %s has examples of %s: give another --crawl name for a new crawl, or remove the model to train it again",
		modelPath, cf.name, strings.Join(have, ", "), cf.seeds, strings.Join(want, ", "))
}

// crawlScorer returns the model of a crawl: the model of --model or
// beside the database (modelPathFor; and the list written beside it,
// MODEL.trained.txt, when there is one), else one trained from the seed
// file's examples (kept beside the database once the crawl is opened,
// with the list), else none for bfs. On PostgreSQL without --model, the
// model is the one kept in the database (sharedScorer).
func crawlScorer(cmd *cobra.Command, cf *crawlFlags, pg *postgres.Store, seeds *training.Seeds, strategy crawler.Strategy, f training.Fetcher) (crawlModel, error) {
	ctx := cmd.Context()
	if pg != nil && cf.model == "" {
		path, scorer, learnt, err := sharedScorer(cmd, cf, pg, seeds, strategy, f)
		return crawlModel{path: path, scorer: scorer, learnt: learnt}, err
	}
	modelPath := cf.model
	if modelPath == "" {
		modelPath = modelPathFor(cf.db, cf.name)
	}
	var scorer crawler.Scorer
	var learnt []urlnorm.URL
	var save func() error
	if m, err := loadModel(modelPath); err == nil {
		if err := sameTopics(m, seeds, cf, modelPath); err != nil {
			return crawlModel{}, err
		}
		if err := applyThreshold(cmd, m, cf.mf.Threshold, cmd.ErrOrStderr()); err != nil {
			return crawlModel{}, err
		}
		scorer = training.NewScorer(m)
		learnt, err = experiment.ReadTrained(experiment.TrainedPathFor(modelPath))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return crawlModel{}, err
		}
		// The seed file's training pages too, whose links the learner
		// starts from (a model trained here learnt from them already;
		// the store keeps a page listed twice once).
		learnt = append(learnt, training.LearntFrom(seeds, nil)...)
	} else if !errors.Is(err, os.ErrNotExist) {
		return crawlModel{}, err
	} else if cf.model != "" {
		return crawlModel{}, fmt.Errorf("model %s: %w", cf.model, err)
	} else if len(seeds.Topics) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s …\n", cf.seeds)
		var src training.BacklinkSource
		var rec *training.BacklinkRecorder
		if strategy == crawler.StrategyLinkBacklinks && cf.mf.BacklinkDB == "" {
			// Earlier crawls in the same database know links to the examples.
			if _, err := os.Stat(cf.db); err == nil {
				store, err := sqlite.Open(ctx, cf.db)
				if err != nil {
					return crawlModel{}, err
				}
				defer store.Close()
				rec = training.NewBacklinkRecorder(store)
				src = rec
			}
		}
		m, rep, err := trainModel(ctx, seeds, f, &cf.mf, cmd.ErrOrStderr(), src)
		if err != nil {
			return crawlModel{}, err
		}
		printTrainReport(cmd.ErrOrStderr(), rep)
		printRewards(cmd.ErrOrStderr(), m)
		if learnt, err = experiment.LearntOf(ctx, seeds, &cf.mf.Settings, rec); err != nil {
			return crawlModel{}, err
		}
		save = func() error {
			if err := experiment.SaveModel(modelPath, m); err != nil {
				return err
			}
			if err := experiment.WriteTrained(experiment.TrainedPathFor(modelPath), learnt); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "model written to %s\n", modelPath)
			return nil
		}
		scorer = training.NewScorer(m)
	} else if strategy != crawler.StrategyBFS {
		return crawlModel{}, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
	}
	return crawlModel{path: modelPath, scorer: scorer, learnt: learnt, save: save}, nil
}

// sharedModel returns the model of a crawl in a PostgreSQL database: the
// one stored there by its first process, or trained here from the seed
// file's examples and stored for the others. It returns a nil model when
// there is none and the seed file has no examples.
func sharedModel(ctx context.Context, cmd *cobra.Command, store *postgres.Store, cf *crawlFlags, seeds *training.Seeds, f training.Fetcher) (*classify.Model, error) {
	trained := false
	b, err := store.ModelOnce(ctx, "crawl/"+cf.name, func() ([]byte, error) {
		if len(seeds.Topics) == 0 {
			return nil, errNoExamples
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s for every process of crawl %q …\n", cf.seeds, cf.name)
		m, rep, err := trainModel(ctx, seeds, f, &cf.mf, cmd.ErrOrStderr(), nil)
		if err != nil {
			return nil, err
		}
		trained = true
		printTrainReport(cmd.ErrOrStderr(), rep)
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if errors.Is(err, errNoExamples) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := classify.Load(bytes.NewReader(b))
	if err == nil {
		err = checkModel(m)
	}
	if err != nil {
		return nil, fmt.Errorf("model of crawl %s in the database: %w", cf.name, err)
	}
	if !trained {
		fmt.Fprintf(cmd.ErrOrStderr(), "using the model of crawl %q stored in the database\n", cf.name)
	}
	return m, nil
}

var errNoExamples = errors.New("no example pages to train a model")

// sharedScorer returns the scorer of a crawl on PostgreSQL and the pages
// its model learnt from: the first process trains the model and keeps it
// in the database; the others use it.
func sharedScorer(cmd *cobra.Command, cf *crawlFlags, pg *postgres.Store, seeds *training.Seeds, strategy crawler.Strategy, f training.Fetcher) (string, crawler.Scorer, []urlnorm.URL, error) {
	modelPath := "database model of crawl " + cf.name
	m, err := sharedModel(cmd.Context(), cmd, pg, cf, seeds, f)
	switch {
	case err != nil:
		return "", nil, nil, err
	case m == nil && strategy != crawler.StrategyBFS:
		return "", nil, nil, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
	case m == nil:
		return modelPath, nil, nil, nil
	}
	if err := applyThreshold(cmd, m, cf.mf.Threshold, cmd.ErrOrStderr()); err != nil {
		return "", nil, nil, err
	}
	learnt, err := experiment.LearntOf(cmd.Context(), seeds, &cf.mf.Settings, nil)
	if err != nil {
		return "", nil, nil, err
	}
	return modelPath, training.NewScorer(m), learnt, nil
}

// crawlLearning sets cfg's URLs never fetched (--skip-examples: the pages
// the model learnt from) and its link learner (--learn), whose reward
// thresholds are those the model's cross-validation chose (recorded in
// it by trainModel) unless --learn-reward is given, primed with the links
// between the training pages, read through examples (which the model's
// training filled) when the crawl is new, and then released
// (--learn-prior).
func crawlLearning(cfg *crawler.Config, pf *policyFlags, strategy crawler.Strategy, seeds *training.Seeds, scorer crawler.Scorer, examples *experiment.FetchCache, progress io.Writer) error {
	if pf.skipExamples && strategy != crawler.StrategyBFS {
		cfg.Known = seeds.Examples()
	}
	if !pf.learn || (strategy != crawler.StrategyLink && strategy != crawler.StrategyLinkBacklinks) {
		return nil
	}
	lo := learn.Options{RewardAt: pf.reward, Gamma: pf.gamma}
	if cfg.SiteNorm != nil {
		lo.Canonical = cfg.SiteNorm.Canonical
	}
	if pf.reward == 0 {
		if ts, ok := scorer.(*training.Scorer); ok {
			lo.Rewards = experiment.RecordedRewards(ts.Model(), scorer.Topics())
		}
	}
	if pf.prior > 0 {
		lo.Prior, lo.PriorWeight = experiment.TrainingPrior(seeds, scorer, examples, cfg.Segment, progress, examples.Release), pf.prior
	}
	var err error
	cfg.Learner, err = learn.New(scorer.Topics(), lo)
	return err
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/internal/atomicfile"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// crawlModel is the model of a crawl: its path (or where a PostgreSQL
// database keeps it), its scorer (the model's, with its page judge when
// there is one), the model of links itself (whose window cuts link
// contexts), the model that records the learner's reward thresholds, the
// pages the crawl learns from (its models' and the seed file's training
// pages) and, for models trained here, save, which writes them and the
// list of pages beside the database once the crawl is opened (so that a
// crawl refused, as one another process runs, writes nothing).
type crawlModel struct {
	path    string
	scorer  crawler.Scorer
	links   *training.Scorer
	rewards *classify.Model
	learnt  []urlnorm.URL
	save    func() error
	// prior is where the learner's prior of the models may be kept,
	// under priorKey: beside the model files (experiment.PriorPathFor,
	// written there by a crawl that trained them), or in the PostgreSQL
	// database that keeps them; nil when the crawl does not prime.
	prior    *experiment.PriorSource
	priorKey string
}

// newCrawlModel returns the crawlModel of t at path: its scorer judges
// pages with t's page judge when there is one.
func newCrawlModel(path string, t trained, learnt []urlnorm.URL) (crawlModel, error) {
	links := training.NewScorer(t.model)
	cm := crawlModel{path: path, scorer: links, links: links, rewards: t.rewards(), learnt: learnt}
	if t.judge != nil {
		sc, err := experiment.NewPageScorer(links, training.NewScorer(t.judge))
		if err != nil {
			return cm, fmt.Errorf("page judge of %s: %w", path, err)
		}
		cm.scorer = sc
	}
	return cm, nil
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
// beside the database (modelPathFor; with its page judge,
// MODEL.page.json, and the list written beside it, MODEL.trained.txt,
// when there are), else models trained from the seed file's examples
// (kept beside the database once the crawl is opened, with the list),
// else none for bfs. On PostgreSQL without --model, the models are those
// kept in the database (sharedScorer).
func crawlScorer(cmd *cobra.Command, cf *crawlFlags, pg *postgres.Store, seeds *training.Seeds, strategy crawler.Strategy, f training.Fetcher) (crawlModel, error) {
	ctx := cmd.Context()
	if pg != nil && cf.model == "" {
		return sharedScorer(cmd, cf, pg, seeds, strategy, f)
	}
	modelPath := cf.model
	if modelPath == "" {
		modelPath = modelPathFor(cf.db, cf.name)
	}
	if m, err := loadModel(modelPath); err == nil {
		if err := sameTopics(m, seeds, cf, modelPath); err != nil {
			return crawlModel{}, err
		}
		if err := applyThreshold(cmd, m, cf.mf.Threshold, cmd.ErrOrStderr()); err != nil {
			return crawlModel{}, err
		}
		t := trained{model: m}
		if cf.mf.pageJudge {
			judgePath := experiment.PagePathFor(modelPath)
			if t.judge, err = loadModel(judgePath); errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(cmd.ErrOrStderr(), "no page judge beside %s (%s): the model judges the pages it fetches too\n", modelPath, filepath.Base(judgePath))
			} else if err != nil {
				return crawlModel{}, err
			}
		}
		learnt, err := experiment.ReadTrained(experiment.TrainedPathFor(modelPath))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return crawlModel{}, err
		}
		// The seed file's training pages too, whose links the learner
		// starts from (a model trained here learnt from them already;
		// the store keeps a page listed twice once).
		learnt = append(learnt, training.LearntFrom(seeds, nil)...)
		cm, err := newCrawlModel(modelPath, t, learnt)
		if err != nil {
			return crawlModel{}, err
		}
		// The learner's prior, when scent train kept it beside the model.
		if key, err := experiment.PriorKey(modelPath, t.judge != nil, seeds, cm.scorer.Topics()); err == nil {
			src := experiment.PriorFile(experiment.PriorPathFor(modelPath))
			cm.prior, cm.priorKey = &src, key
		}
		return cm, nil
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
		t, err := trainModels(ctx, seeds, f, &cf.mf, cmd.ErrOrStderr(), src)
		if err != nil {
			return crawlModel{}, err
		}
		printTrainReport(cmd.ErrOrStderr(), t.report, crawlReportFlag)
		if strategy == crawler.StrategyLinkBacklinks && backlinkSegments(t.report) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "--strategy link+backlinks: no link to an example was found to learn from (%s holds no earlier crawl that reached one, and no --backlinks or --backlinks-db was given): the model is the one --strategy link trains\n", cf.db)
		}
		printJudgeReport(cmd.ErrOrStderr(), t.judgeRep)
		printRewards(cmd.ErrOrStderr(), t)
		learnt, err := experiment.LearntOf(ctx, seeds, &cf.mf.Settings, rec)
		if err != nil {
			return crawlModel{}, err
		}
		cm, err := newCrawlModel(modelPath, t, learnt)
		if err != nil {
			return crawlModel{}, err
		}
		if primes(&cf.pf, strategy) {
			// The learner's prior is read from the pages the training
			// fetched, and kept beside the models for a later crawl.
			key, err := savedKey(t, seeds, cm.scorer.Topics())
			if err != nil {
				return crawlModel{}, err
			}
			src := keepingPrior(ctx, cmd, experiment.PriorPathFor(modelPath), key, seeds, cm, f, cf.pf.workers)
			cm.prior, cm.priorKey = &src, key
		}
		cm.save = func() error {
			err := saveModels(modelPath, t, func() error {
				return experiment.WriteTrained(experiment.TrainedPathFor(modelPath), learnt)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "model written to %s\n", modelPath)
			return nil
		}
		return cm, err
	} else if strategy != crawler.StrategyBFS {
		return crawlModel{}, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
	}
	return crawlModel{path: modelPath}, nil
}

// sharedModel returns a model of a crawl in a PostgreSQL database, kept
// under key, and its bytes there: the one stored there by its first
// process, or trained here with train and stored for the others; before,
// when not nil, is called with the bytes of a model trained here before
// they are stored, while this process holds the model's lock. It returns
// a nil model when train returns errNoExamples.
func sharedModel(ctx context.Context, cmd *cobra.Command, store *postgres.Store, key, what string, train func() (*classify.Model, error), before func([]byte) error) (*classify.Model, []byte, error) {
	trained := false
	b, err := store.ModelOnce(ctx, key, func() ([]byte, error) {
		m, err := train()
		if err != nil {
			return nil, err
		}
		trained = true
		b, err := savedBytes(m)
		if err == nil && before != nil {
			err = before(b)
		}
		return b, err
	})
	if errors.Is(err, errNoExamples) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	m, err := storedModel(b, what)
	if err != nil {
		return nil, nil, err
	}
	if !trained {
		fmt.Fprintf(cmd.ErrOrStderr(), "using the %s stored in the database\n", what)
	}
	return m, b, nil
}

// storedModel reads the model what (as errors name it) stored in the
// database as b.
func storedModel(b []byte, what string) (*classify.Model, error) {
	m, err := classify.Load(bytes.NewReader(b))
	if err == nil {
		err = checkModel(m)
	}
	if err != nil {
		return nil, fmt.Errorf("%s in the database: %w", what, err)
	}
	return m, nil
}

var errNoExamples = errors.New("no example pages to train a model")

// sharedScorer returns the model of a crawl on PostgreSQL and the pages
// its models learnt from: the first process trains the model and the
// page judge and keeps them in the database; the others use them.
func sharedScorer(cmd *cobra.Command, cf *crawlFlags, pg *postgres.Store, seeds *training.Seeds, strategy crawler.Strategy, f training.Fetcher) (crawlModel, error) {
	ctx := cmd.Context()
	modelPath := "database model of crawl " + cf.name
	// The first process trains both models at once; a model it trained
	// but another process stored first is dropped for the stored one.
	var t trained
	var trainErr error
	trainOnce := func() {
		if t.model != nil || trainErr != nil {
			return
		}
		if len(seeds.Topics) == 0 {
			trainErr = errNoExamples
			return
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "training a model from %s for every process of crawl %q …\n", cf.seeds, cf.name)
		if t, trainErr = trainModels(ctx, seeds, f, &cf.mf, cmd.ErrOrStderr(), nil); trainErr == nil {
			printTrainReport(cmd.ErrOrStderr(), t.report, crawlReportFlag)
			printJudgeReport(cmd.ErrOrStderr(), t.judgeRep)
		}
	}
	judgeKey, judgeWhat := "crawl/"+cf.name+"/page", fmt.Sprintf("page judge of crawl %q", cf.name)
	priorKey := "crawl/" + cf.name + "/prior"
	storesPrior := primes(&cf.pf, strategy)
	// The process that trains stores the page judge and the learner's
	// prior before the model, while it holds the model's lock: a process
	// that gets the model then finds them too, and neither trains again
	// nor reads the training pages to prime its learner.
	var storedJudge []byte
	m, mb, err := sharedModel(ctx, cmd, pg, "crawl/"+cf.name, fmt.Sprintf("model of crawl %q", cf.name), func() (*classify.Model, error) {
		trainOnce()
		if trainErr == nil && cf.mf.pageJudge && t.judge != nil {
			b, err := savedBytes(t.judge)
			if err == nil {
				b, err = pg.SaveModel(ctx, judgeKey, b)
			}
			if err != nil {
				return nil, err
			}
			storedJudge = b
		}
		return t.model, trainErr
	}, func(mb []byte) error {
		if !storesPrior {
			return nil
		}
		return storePrior(ctx, cmd, pg, priorKey, mb, storedJudge, seeds, f, cf.pf.workers)
	})
	switch {
	case err != nil:
		return crawlModel{}, err
	case m == nil && strategy != crawler.StrategyBFS:
		return crawlModel{}, fmt.Errorf("strategy %s needs a model: give --model or example pages in %s", strategy, cf.seeds)
	case m == nil:
		return crawlModel{path: modelPath}, nil
	}
	var judge *classify.Model
	jb := storedJudge
	if storedJudge != nil {
		if judge, err = storedModel(storedJudge, judgeWhat); err != nil {
			return crawlModel{}, err
		}
	} else if cf.mf.pageJudge {
		if judge, jb, err = sharedModel(ctx, cmd, pg, judgeKey, judgeWhat, func() (*classify.Model, error) {
			trainOnce()
			if trainErr == nil && t.judge == nil {
				return nil, errNoExamples
			}
			return t.judge, trainErr
		}, nil); err != nil {
			return crawlModel{}, err
		}
	}
	if err := applyThreshold(cmd, m, cf.mf.Threshold, cmd.ErrOrStderr()); err != nil {
		return crawlModel{}, err
	}
	learnt, err := experiment.LearntOf(ctx, seeds, &cf.mf.Settings, nil)
	if err != nil {
		return crawlModel{}, err
	}
	cm, err := newCrawlModel(modelPath, trained{model: m, judge: judge}, learnt)
	if err != nil {
		return crawlModel{}, err
	}
	src := experiment.PriorSource{Where: "the database (" + priorKey + ")", Missing: "the process that trains the models keeps one there",
		Open: func() (io.ReadCloser, error) {
			b, err := pg.Model(ctx, priorKey)
			if errors.Is(err, postgres.ErrNoModel) {
				return nil, fmt.Errorf("%w: %w", err, os.ErrNotExist)
			}
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}}
	cm.prior, cm.priorKey = &src, experiment.PriorKeyOf(modelBytes(mb, jb), seeds, cm.scorer.Topics())
	return cm, nil
}

// learns reports whether a crawl with pf and strategy has a link learner
// (crawlLearning).
func learns(pf *policyFlags, strategy crawler.Strategy) bool {
	return pf.learn && (strategy == crawler.StrategyLink || strategy == crawler.StrategyLinkBacklinks)
}

// primes reports whether a new crawl with pf and strategy primes its
// link learner with the links between the training pages.
func primes(pf *policyFlags, strategy crawler.Strategy) bool {
	return learns(pf, strategy) && pf.prior > 0
}

// savedBytes is m as experiment.SaveModel saves it.
func savedBytes(m *classify.Model) ([]byte, error) {
	var buf bytes.Buffer
	err := m.Save(&buf)
	return buf.Bytes(), err
}

// savedKey is the key of the learner's prior of t's models as
// experiment.SaveModel saves them (experiment.PriorKeyOf).
func savedKey(t trained, seeds *training.Seeds, topics []string) (string, error) {
	var models [][]byte
	for _, m := range []*classify.Model{t.model, t.judge} {
		if m == nil {
			continue
		}
		b, err := savedBytes(m)
		if err != nil {
			return "", err
		}
		models = append(models, b)
	}
	return experiment.PriorKeyOf(models, seeds, topics), nil
}

// keepingPrior is the prior of a crawl that trained cm's models itself:
// read, when the crawl primes its learner, from the training pages
// through f (which the training filled), and written to path so that a
// later crawl with the models kept beside the database finds it there.
// A prior that cannot be written is said and used all the same.
func keepingPrior(ctx context.Context, cmd *cobra.Command, path, key string, seeds *training.Seeds, cm crawlModel, f training.Fetcher, parallel int) experiment.PriorSource {
	return experiment.PriorSource{Where: path, Missing: "", Open: func() (io.ReadCloser, error) {
		b, _, _, err := experiment.EncodePrior(ctx, key, seeds, cm.scorer, f, cm.links.Segment(), parallel)
		if err != nil {
			return nil, err
		}
		if err := atomicfile.Write(path, func(w *os.File) error {
			_, err := w.Write(b)
			return err
		}); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "learner prior not kept beside the model: %v\n", err)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// modelBytes is the list of the saved model of links and, when there is
// one, the page judge, as experiment.PriorKeyOf takes them.
func modelBytes(links, judge []byte) [][]byte {
	if judge == nil {
		return [][]byte{links}
	}
	return [][]byte{links, judge}
}

// storePrior stores in the database under key the learner's prior of a
// crawl with the model saved as mb and the page judge saved as jb (none
// when nil): the links between the training pages of seeds, read
// through f (which the models' training filled), parallel at once. The
// models are read from those bytes, not taken as trained: the judge
// stored may be another process's, and the prior must be scored by the
// models every process reads.
func storePrior(ctx context.Context, cmd *cobra.Command, pg *postgres.Store, key string, mb, jb []byte, seeds *training.Seeds, f training.Fetcher, parallel int) error {
	m, err := storedModel(mb, "model")
	if err != nil {
		return err
	}
	t := trained{model: m}
	if jb != nil {
		if t.judge, err = storedModel(jb, "page judge"); err != nil {
			return err
		}
	}
	cm, err := newCrawlModel("", t, nil)
	if err != nil {
		return err
	}
	b, links, pages, err := experiment.EncodePrior(ctx, experiment.PriorKeyOf(modelBytes(mb, jb), seeds, cm.scorer.Topics()), seeds, cm.scorer, f, cm.links.Segment(), parallel)
	if err != nil {
		return fmt.Errorf("learner prior: %w", err)
	}
	if _, err := pg.SaveModel(ctx, key, b); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "learner prior kept in the database (%s) for every process: %d links between %d training pages\n", key, links, pages)
	return nil
}

// crawlLearning sets cfg's URLs never fetched (--skip-examples: the pages
// the models learnt from) and its link learner (--learn), whose reward
// thresholds are those recorded in rewards (the page judge, or the model
// when it judges pages itself: trainModels) unless --learn-reward is
// given, primed with the links
// between the training pages, read through examples (which the model's
// training filled) when the crawl is new, and then released
// (--learn-prior); read from where scent train kept them beside a model
// it reads from a file, when they were kept for it and these pages.
func crawlLearning(cfg *crawler.Config, pf *policyFlags, strategy crawler.Strategy, seeds *training.Seeds, cm crawlModel, examples *experiment.FetchCache, progress io.Writer) error {
	scorer, rewards := cm.scorer, cm.rewards
	if pf.skipExamples && strategy != crawler.StrategyBFS {
		cfg.Known = seeds.Examples()
	}
	if !learns(pf, strategy) {
		return nil
	}
	lo := learn.Options{RewardAt: pf.reward, Gamma: pf.gamma}
	if cfg.SiteNorm != nil {
		lo.Canonical = cfg.SiteNorm.Canonical
	}
	if pf.reward == 0 && rewards != nil {
		lo.Rewards = experiment.RecordedRewards(rewards, scorer.Topics())
	}
	if primes(pf, strategy) {
		lo.Prior, lo.PriorWeight = experiment.TrainingPrior(seeds, scorer, examples, cfg.Segment, cfg.Workers, progress, examples.Release), pf.prior
		if cm.prior != nil {
			lo.Prior = experiment.KeptPrior(*cm.prior, cm.priorKey, scorer.Topics(), lo.Prior, examples.Release, progress)
		}
	}
	var err error
	cfg.Learner, err = learn.New(scorer.Topics(), lo)
	return err
}

// backlinkSegments counts the backlink segments a model trained on, over
// its topics.
func backlinkSegments(rep *training.Report) int {
	n := 0
	for _, t := range rep.Topics {
		n += t.Backlinks
	}
	return n
}

package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// pageModel is the model that judges pages in a grid run with
// --page-negatives: the examples of a topic set with those negatives.
type pageModel struct {
	scorer    *training.Scorer
	rep       *training.Report
	negatives []training.Source
}

// pageModel returns the page model of c's topic set, K and window,
// training it on first use.
func (g *gridRun) pageModel(ctx context.Context, c gridCell) (*pageModel, error) {
	key := c.model()
	key.backlinks = false
	if p, ok := g.pages[key]; ok {
		return p, nil
	}
	path := filepath.Join(g.work, fmt.Sprintf("seeds-page-%s.txt", key.topics))
	if err := writeSeedFile(path, g.collection, g.starts, c.topics, g.o.Group, g.o.PageNegatives, g.progress); err != nil {
		return nil, err
	}
	seeds, err := training.LoadSeeds(path)
	if err != nil {
		return nil, err
	}
	mf := g.o.pageSettings()
	mf.K, mf.Window, mf.Threshold, mf.CVThresholds = c.k, c.window, g.trainTh, g.cvThresholds()
	m, rep, err := TrainModelWith(ctx, seeds, g.examples, &mf, io.Discard, nil)
	if err != nil {
		return nil, fmt.Errorf("page model of %s, K %d, n %d: %w", key.topics, key.k, key.window, err)
	}
	p := &pageModel{scorer: training.NewScorer(m), rep: rep, negatives: pageNegatives(seeds, c.topics)}
	g.pages[key] = p
	return p, nil
}

// cvThresholds are the thresholds a grid's models are cross-validated at:
// the cells', and with --learn those the reward threshold is chosen from.
func (g *gridRun) cvThresholds() []float64 {
	if g.o.Learn && g.o.LearnOptions.RewardAt == 0 {
		return WithRewardGrid(g.ths)
	}
	return g.ths
}

// cellLearning sets cfg's learner and known pages for cell c crawling
// with sc (trained with report rep), adding the page model with
// --page-negatives. It returns the scorer to crawl with and the pages
// learnt from beyond learnt.
func (g *gridRun) cellLearning(ctx context.Context, c gridCell, cfg *crawler.Config, sc crawler.Scorer, rep *training.Report, learnt []urlnorm.URL) (crawler.Scorer, []urlnorm.URL, error) {
	seeds := g.seeds[report.TopicSet(c.topics)]
	o := g.o.Spec
	if o.PageNegatives != "" && o.PageNegatives != o.Negatives {
		p, err := g.pageModel(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		ps, err := newPageScorer(sc, p.scorer)
		if err != nil {
			return nil, nil, err
		}
		sc, rep = ps, p.rep
		s := *seeds
		s.Other = append(slices.Clone(seeds.Other), p.negatives...)
		seeds = &s
		learnt = append(slices.Clone(learnt), training.LearntFrom(seeds, nil)...)
	}
	if o.Learn && o.LearnOptions.RewardAt == 0 {
		o.LearnOptions.Rewards = RewardThresholds(rep, sc.Topics())
	}
	return sc, learnt, o.learning(cfg, seeds, sc, g.examples, nil, g.progress) // the grid's cells share the pages
}

package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/webkb"
)

// rewardGrid are the page thresholds cross-validated to choose each
// topic's reward threshold for the link learner.
var rewardGrid = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95}

// WithRewardGrid adds rewardGrid to the thresholds a training run
// cross-validates.
func WithRewardGrid(ths []float64) []float64 {
	out := slices.Clone(ths)
	for _, th := range rewardGrid {
		if !slices.Contains(out, th) {
			out = append(out, th)
		}
	}
	return out
}

// RewardThresholds chooses, per topic (in the order of topics), the page
// threshold of rewardGrid at which the cross-validated page classification
// of the training examples has the best F1 (the higher threshold on a
// tie): where the model's verdict on a fetched page is most often right.
// A topic without cross-validation gets 0 (the learner's default).
func RewardThresholds(rep *training.Report, topics []string) []float64 {
	out := make([]float64, len(topics))
	best := make([]float64, len(topics))
	for _, cv := range rep.ByThreshold {
		if cv.Page == nil || !slices.Contains(rewardGrid, cv.Threshold) {
			continue
		}
		for _, ts := range cv.Page.Topics {
			i := slices.Index(topics, ts.Class)
			if i >= 0 && ts.F1 > 0 && ts.F1 >= best[i] {
				best[i], out[i] = ts.F1, cv.Threshold
			}
		}
	}
	return out
}

// pageScorer scores links with one model and pages with another.
type pageScorer struct {
	crawler.Scorer
	page crawler.Scorer
}

// ScoreLink implements crawler.LinkScorer: the link scorer's ScoreLink
// when it has one (an oracle), its Score otherwise.
func (s pageScorer) ScoreLink(target urlnorm.URL, tokens []string, dst []float64) []float64 {
	if ls, ok := s.Scorer.(crawler.LinkScorer); ok {
		return ls.ScoreLink(target, tokens, dst)
	}
	return s.Score(tokens, dst)
}

// ScorePage implements crawler.Scorer with the page model.
func (s pageScorer) ScorePage(tokens []string, dst []float64) []float64 {
	return s.page.ScorePage(tokens, dst)
}

// trainPageModel trains the model that judges pages (--page-negatives):
// the experiment's examples with those negatives. It returns the model,
// its report and the negatives' sources, which the model learnt from too.
func (o Spec) trainPageModel(ctx context.Context, a *replay.Archive, fc fetch.Config, progress io.Writer) (*classify.Model, *training.Report, []training.Source, error) {
	path := filepath.Join(o.Out, "seeds-page.txt")
	if err := writeFileAtomic(path, func(f *os.File) error { return webkb.WriteSeeds(f, a, o.Topics, o.Group, o.PageNegatives) }); err != nil {
		return nil, nil, nil, err
	}
	seeds, err := training.LoadSeeds(path)
	if err != nil {
		return nil, nil, nil, err
	}
	mf := o.Model
	m, rep, err := TrainModel(ctx, seeds, fc, &mf, progress, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("page model: %w", err)
	}
	if err := SaveModel(filepath.Join(o.Out, "page-model.json"), m); err != nil {
		return nil, nil, nil, err
	}
	return m, rep, seeds.Other, nil
}

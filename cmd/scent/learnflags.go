package main

import (
	"slices"

	"github.com/scent-crawler/scent/training"
)

// rewardGrid are the page thresholds cross-validated to choose each
// topic's reward threshold for the link learner.
var rewardGrid = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95}

// withRewardGrid adds rewardGrid to the thresholds a training run
// cross-validates.
func withRewardGrid(ths []float64) []float64 {
	out := slices.Clone(ths)
	for _, th := range rewardGrid {
		if !slices.Contains(out, th) {
			out = append(out, th)
		}
	}
	return out
}

// rewardThresholds chooses, per topic (in the order of topics), the page
// threshold of rewardGrid at which the cross-validated page classification
// of the training examples has the best F1 (the higher threshold on a
// tie): where the model's verdict on a fetched page is most often right.
// A topic without cross-validation gets 0 (the learner's default).
func rewardThresholds(rep *training.Report, topics []string) []float64 {
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

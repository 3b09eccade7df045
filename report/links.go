package report

import (
	"fmt"
	"strings"

	"github.com/scent-crawler/scent/crawler"
)

// DefaultThreshold is the link score at or above which a link counts as
// predicted relevant when a topic's Threshold is not set.
const DefaultThreshold = 0.76

// LinkStats is the link classifier's confusion on the labelled links of a
// crawl for one topic. A link is relevant when its target's label is the
// topic, and predicted relevant when its score is at least Threshold.
type LinkStats struct {
	Threshold float64 `json:"threshold"`
	// Scored counts the links with a score; Labelled those of them whose
	// target is in the labels file, which the rates are computed over.
	Scored    int     `json:"scored"`
	Labelled  int     `json:"labelled"`
	TruePos   int     `json:"true_positives"`
	FalsePos  int     `json:"false_positives"`
	FalseNeg  int     `json:"false_negatives"`
	TrueNeg   int     `json:"true_negatives"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// AddLink counts a stored link, as a store's read of the crawl's links
// gives it, for the link-classifier evaluation. It needs labels: without
// them, or for a link without scores, it does nothing. Each topic's
// threshold is TopicStats.Threshold (DefaultThreshold when zero), read at
// the first link counted.
func (r *Report) AddLink(l *crawler.PageLink) {
	if r.labels == nil || len(l.Scores) == 0 {
		return
	}
	_, label, labelled := r.labelOf(l.Target)
	for _, t := range r.Topics {
		s, ok := l.Score(t.Topic)
		if !ok {
			continue
		}
		if t.Links == nil {
			if t.Threshold <= 0 {
				t.Threshold = DefaultThreshold
			}
			t.Links = &LinkStats{Threshold: t.Threshold}
		}
		ls := t.Links
		ls.Scored++
		if !labelled {
			continue
		}
		ls.Labelled++
		pred, rel := s >= ls.Threshold, label == t.Topic
		switch {
		case pred && rel:
			ls.TruePos++
		case pred:
			ls.FalsePos++
		case rel:
			ls.FalseNeg++
		default:
			ls.TrueNeg++
		}
	}
}

// finish computes the rates from the counts.
func (ls *LinkStats) finish() {
	if n := ls.TruePos + ls.FalsePos; n > 0 {
		ls.Precision = float64(ls.TruePos) / float64(n)
	}
	if n := ls.TruePos + ls.FalseNeg; n > 0 {
		ls.Recall = float64(ls.TruePos) / float64(n)
	}
	if ls.Precision+ls.Recall > 0 {
		ls.F1 = 2 * ls.Precision * ls.Recall / (ls.Precision + ls.Recall)
	}
}

// writeLinkTable adds the link-classifier table to a Markdown report when
// any topic has link statistics.
func writeLinkTable(b *strings.Builder, r *Report) {
	has := false
	for _, t := range r.Topics {
		has = has || t.Links != nil
	}
	if !has {
		return
	}
	b.WriteString("\n## Link classifier on labelled links\n\n")
	b.WriteString("A link is relevant when its target is labelled with the topic, predicted relevant when its score is at least the threshold.\n\n")
	b.WriteString("| topic | threshold | scored links | labelled | true pos. | false pos. | false neg. | precision | recall | F1 |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range r.Topics {
		if l := t.Links; l != nil {
			fmt.Fprintf(b, "| %s | %.2f | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f |\n", t.Topic, l.Threshold, l.Scored, l.Labelled,
				l.TruePos, l.FalsePos, l.FalseNeg, l.Precision, l.Recall, l.F1)
		}
	}
}

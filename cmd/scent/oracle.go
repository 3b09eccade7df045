package main

import (
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// oracleScorer scores links by the label of their target in a replayed,
// labelled collection: 1 for the topic the target is labelled with, 0 for
// the others. Pages are still scored by the trained model. A crawl with it
// shows what a perfect link classifier would reach under the same
// frontier and budget: the ceiling of link-context scoring on the
// collection.
type oracleScorer struct {
	crawler.Scorer
	archive *replay.Archive
	labels  map[urlnorm.URL]string
}

var _ crawler.LinkScorer = (*oracleScorer)(nil)

func newOracleScorer(s crawler.Scorer, a *replay.Archive) *oracleScorer {
	o := &oracleScorer{Scorer: s, archive: a, labels: make(map[urlnorm.URL]string)}
	for _, l := range a.Labels() {
		o.labels[l.URL] = l.Label
	}
	return o
}

// ScoreLink implements crawler.LinkScorer.
func (o *oracleScorer) ScoreLink(target urlnorm.URL, _ []string, dst []float64) []float64 {
	label := o.labelOf(target)
	dst = dst[:0]
	for _, t := range o.Topics() {
		v := 0.0
		if t == label {
			v = 1
		}
		dst = append(dst, v)
	}
	return dst
}

// labelOf returns the label of the page the replay ends at for u.
func (o *oracleScorer) labelOf(u urlnorm.URL) string {
	p, ok := o.archive.Follow(u)
	if !ok {
		return ""
	}
	return o.labels[p.URL]
}

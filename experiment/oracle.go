package experiment

import (
	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// oracleScorer scores links with knowledge a crawler does not have, taken
// from the labels of a replayed collection, to show what that knowledge
// would be worth under the same frontier and budget. With targets, a link
// scores 1 for the topic its target is labelled with and 0 for the
// others: a perfect link classifier, the ceiling of link-context scoring
// on the collection. With hubs, a link whose target is a hub of a topic —
// a page that links to a page labelled with the topic — scores 1 for
// that topic; its other scores are the targets oracle's, or the model's.
// Pages are still scored by the trained model.
type oracleScorer struct {
	crawler.Scorer
	archive *replay.Archive
	labels  map[urlnorm.URL]string
	targets bool
	hubs    map[*replay.Page][]bool // per topic, in Topics order
}

var _ crawler.LinkScorer = (*oracleScorer)(nil)

func newOracleScorer(s crawler.Scorer, a *replay.Archive, targets, hubs bool) *oracleScorer {
	o := &oracleScorer{Scorer: s, archive: a, labels: make(map[urlnorm.URL]string), targets: targets}
	for _, l := range a.Labels() {
		o.labels[l.URL] = classify.NameOf(l.Label)
	}
	if hubs {
		o.hubs = make(map[*replay.Page][]bool)
		topics := s.Topics()
		for _, p := range a.Pages() {
			for _, u := range p.Links() {
				q, ok := a.Follow(u)
				if !ok || q == p {
					continue
				}
				label := o.labels[q.URL]
				for i, t := range topics {
					if label == t {
						if o.hubs[p] == nil {
							o.hubs[p] = make([]bool, len(topics))
						}
						o.hubs[p][i] = true
					}
				}
			}
		}
	}
	return o
}

// ScoreLink implements crawler.LinkScorer.
func (o *oracleScorer) ScoreLink(target urlnorm.URL, tokens []string, dst []float64) []float64 {
	p, found := o.archive.Follow(target)
	if o.targets {
		label := ""
		if found {
			label = o.labels[p.URL]
		}
		dst = dst[:0]
		for _, t := range o.Topics() {
			v := 0.0
			if t == label {
				v = 1
			}
			dst = append(dst, v)
		}
	} else {
		dst = o.Score(tokens, dst)
	}
	if found {
		for i, hub := range o.hubs[p] {
			if hub {
				dst[i] = 1
			}
		}
	}
	return dst
}

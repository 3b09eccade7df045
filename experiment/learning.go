package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
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

// MetaRewards is the model's record (classify.Model.Meta) of the reward
// thresholds its cross-validation chose: "topic=threshold" pairs,
// comma-separated, for the topics it chose one for.
const MetaRewards = "reward_thresholds"

// RecordRewards records in m the reward thresholds rep's
// cross-validation chose for m's topics (RewardThresholds), so that a
// crawl with the model, trained earlier, learns at them
// (RecordedRewards).
func RecordRewards(m *classify.Model, rep *training.Report) {
	topics := m.Topics()
	var pairs []string
	for i, th := range RewardThresholds(rep, topics) {
		if th > 0 {
			pairs = append(pairs, fmt.Sprintf("%s=%g", topics[i], th))
		}
	}
	if len(pairs) > 0 {
		m.SetMeta(MetaRewards, strings.Join(pairs, ","))
	}
}

// CheckRewards checks m's record of reward thresholds (RecordRewards),
// when it has one: comma-separated "topic=threshold" pairs, each topic
// one of m's and each threshold in (0, 1]. A model without the record
// leaves the learner its default.
func CheckRewards(m *classify.Model) error {
	rec := m.Meta(MetaRewards)
	if rec == "" {
		return nil
	}
	topics, _, ok := rewardPairs(rec)
	if !ok {
		return fmt.Errorf("meta %s %q: want topic=threshold pairs, comma-separated, each threshold in (0, 1]", MetaRewards, rec)
	}
	for _, topic := range topics {
		if !slices.Contains(m.Topics(), topic) {
			return fmt.Errorf("meta %s %q: no topic %q in the model (it has %s)", MetaRewards, rec, topic, strings.Join(m.Topics(), ", "))
		}
	}
	return nil
}

// RecordedRewards returns the reward thresholds recorded in m
// (RecordRewards) for topics, in their order, 0 for a topic without one
// (the learner's default), or nil when m records none or the record is
// damaged.
func RecordedRewards(m *classify.Model, topics []string) []float64 {
	rec := m.Meta(MetaRewards)
	if rec == "" {
		return nil
	}
	recorded, ths, ok := rewardPairs(rec)
	if !ok {
		return nil
	}
	out := make([]float64, len(topics))
	for j, topic := range recorded {
		if i := slices.Index(topics, topic); i >= 0 {
			out[i] = ths[j]
		}
	}
	return out
}

// rewardPairs reads a record of reward thresholds (MetaRewards): its
// topics and thresholds, in its order, or false when it is not
// comma-separated "topic=threshold" pairs each with a threshold in
// (0, 1].
func rewardPairs(rec string) (topics []string, ths []float64, ok bool) {
	for _, pair := range strings.Split(rec, ",") {
		topic, v, ok := strings.Cut(pair, "=")
		th, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(th > 0 && th <= 1) {
			return nil, nil, false
		}
		topics, ths = append(topics, topic), append(ths, th)
	}
	return topics, ths, true
}

// pageScorer scores links with one model and pages with another, whose
// topics may be more than the crawl's: idx holds, for each of the link
// scorer's topics, its index among the page model's.
type pageScorer struct {
	crawler.Scorer
	page *training.Scorer
	idx  []int
}

// NewPageScorer returns a crawler.Scorer that scores links with links
// and pages with the page judge page, which must know every topic of
// links (and may know more: the kinds of page it tells them from).
func NewPageScorer(links crawler.Scorer, page *training.Scorer) (crawler.Scorer, error) {
	return newPageScorer(links, page)
}

// newPageScorer is NewPageScorer.
func newPageScorer(links crawler.Scorer, page *training.Scorer) (pageScorer, error) {
	s := pageScorer{Scorer: links, page: page}
	for _, t := range links.Topics() {
		i := slices.Index(page.Topics(), t)
		if i < 0 {
			return s, fmt.Errorf("page model: no topic %s (it has %s)", t, strings.Join(page.Topics(), ", "))
		}
		s.idx = append(s.idx, i)
	}
	return s, nil
}

// ScoreLink implements crawler.LinkScorer: the link scorer's ScoreLink
// when it has one (an oracle), its Score otherwise.
func (s pageScorer) ScoreLink(target urlnorm.URL, tokens []string, dst []float64) []float64 {
	if ls, ok := s.Scorer.(crawler.LinkScorer); ok {
		return ls.ScoreLink(target, tokens, dst)
	}
	return s.Score(tokens, dst)
}

// ScorePage implements crawler.Scorer with the page model: its scores of
// the crawl's topics.
func (s pageScorer) ScorePage(tokens []string, dst []float64) []float64 {
	all := s.page.ScorePage(tokens, make([]float64, 0, len(s.page.Topics())))
	dst = dst[:0]
	for _, i := range s.idx {
		dst = append(dst, all[i])
	}
	return dst
}

// The page judge's settings by default (scent experiment's
// --page-documents, --page-prior-mix and --page-absent-discount; the
// page judge of scent train and scent crawl): whole pages, the class
// priors shrunk a tenth toward uniform, the words a page lacks
// discounted by the site concentration of its training pages.
const (
	DefaultPageDocuments = training.DocPages
	DefaultPagePriorMix  = 0.1
)

// PageSettings returns the settings of a page judge trained beside a
// model of links trained with mf (training.Seeds.PageSeeds): mf's, with
// the page judge's defaults, and every kind of page enough as negatives
// when there is no plain negative example.
func PageSettings(mf training.Settings) training.Settings {
	mf.LabelledNegatives = true
	mf.PriorMix = DefaultPagePriorMix
	mf.AbsentDiscount = training.AutoAbsentDiscount
	mf.Documents = string(DefaultPageDocuments)
	return mf
}

// PagePathFor is where the page judge of the model at path is kept:
// MODEL.page.json beside MODEL.json.
func PagePathFor(model string) string {
	return strings.TrimSuffix(model, filepath.Ext(model)) + ".page.json"
}

// pageSettings are the page model's training settings: the
// experiment's, with PageDocuments, PagePriorMix and PageAbsentDiscount;
// with --page-negatives labels the other labels are negatives enough
// when the group has no page labelled other.
func (o Spec) pageSettings() training.Settings {
	mf := o.Model
	mf.LabelledNegatives = o.PageNegatives == "labels"
	mf.PriorMix = o.PagePriorMix
	mf.AbsentDiscount = o.PageAbsentDiscount
	if o.PageDocuments != "" {
		mf.Documents = o.PageDocuments
	}
	return mf
}

// pageNegatives are the sources of the page model's seeds that are not
// examples of topics: its negatives, and with --page-negatives labels
// the examples of every other label. The crawl's model never learnt from
// them, but the page model did.
func pageNegatives(s *training.Seeds, topics []string) []training.Source {
	out := slices.Clone(s.Other)
	for _, t := range s.Topics {
		if !slices.Contains(topics, t) {
			out = append(out, s.Train[t]...)
		}
	}
	return out
}

// trainPageModel trains the model that judges pages (--page-negatives):
// the experiment's examples with those negatives (the crawl starting at
// starts; nil: the collection's sites). It returns the model,
// its report and the sources it learnt from beyond the topics' examples.
func (o Spec) trainPageModel(ctx context.Context, a *replay.Archive, starts []urlnorm.URL, f training.Fetcher, progress io.Writer) (*classify.Model, *training.Report, []training.Source, error) {
	path := filepath.Join(o.Out, "seeds-page.txt")
	if err := writeSeedFile(path, a, starts, o.Topics, o.Group, o.PageNegatives, progress); err != nil {
		return nil, nil, nil, err
	}
	seeds, err := training.LoadSeeds(path)
	if err != nil {
		return nil, nil, nil, err
	}
	mf := o.pageSettings()
	m, rep, err := TrainModelWith(ctx, seeds, f, &mf, progress, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("page model: %w", err)
	}
	if d := m.Options().AbsentDiscount; d > 0 {
		fmt.Fprintf(progress, "page model: the words a page lacks discounted by %.3f\n", d)
	}
	if err := SaveModel(filepath.Join(o.Out, "page-model.json"), m); err != nil {
		return nil, nil, nil, err
	}
	return m, rep, pageNegatives(seeds, o.Topics), nil
}

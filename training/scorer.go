package training

import (
	"strconv"
	"strings"
	"sync"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/segment"
)

// Scorer presents a model's topic posteriors to the crawler: Score gives
// P(topic | tokens) for each topic (the background class left out) and
// Threshold the topic's on-topic threshold. It is safe for concurrent use.
type Scorer struct {
	m      *classify.Model
	topics []string
	idx    []int
	pool   sync.Pool
	window int // > 0: the model learnt from windows of this many tokens
	seg    segment.Options
}

// NewScorer wraps m.
func NewScorer(m *classify.Model) *Scorer {
	s := &Scorer{m: m, topics: m.Topics(), seg: SegmentOf(m)}
	if strings.Contains(m.Meta(MetaDocuments), string(DocWindows)) {
		if n, err := strconv.Atoi(m.Meta(MetaWindow)); err == nil && n > 0 {
			s.window = windowSize(n)
		}
	}
	for _, t := range s.topics {
		s.idx = append(s.idx, m.Index(t))
	}
	n := len(m.Classes())
	s.pool.New = func() any { b := make([]float64, n); return &b }
	return s
}

// SegmentOf returns the segmentation m learnt from, which a crawl scoring
// links with m cuts their contexts by: the window Build recorded (the
// default for a model without one) and whether link features include
// URL path words.
func SegmentOf(m *classify.Model) segment.Options {
	o := segment.Options{Window: segment.DefaultWindow, URLTokens: m.Meta(MetaURLTokens) == "true"}
	if n, err := strconv.Atoi(m.Meta(MetaWindow)); err == nil && n > 0 {
		o.Window = n
	}
	return o
}

// Segment returns the segmentation of the scorer's model (SegmentOf).
func (s *Scorer) Segment() segment.Options { return s.seg }

// Topics lists the model's topics.
func (s *Scorer) Topics() []string { return s.topics }

// Model returns the model the scorer wraps.
func (s *Scorer) Model() *classify.Model { return s.m }

// Score writes P(topic | tokens) per topic into dst.
func (s *Scorer) Score(tokens []string, dst []float64) []float64 {
	return s.pick(tokens, dst, s.idx)
}

// pick writes into dst the posteriors of the classes idx (every class of
// the model when nil) for tokens scored at once.
func (s *Scorer) pick(tokens []string, dst []float64, idx []int) []float64 {
	buf := s.pool.Get().(*[]float64)
	post := s.m.Posterior(tokens, *buf)
	dst = dst[:0]
	if idx == nil {
		dst = append(dst, post...)
	}
	for _, i := range idx {
		dst = append(dst, post[i])
	}
	*buf = post
	s.pool.Put(buf)
	return dst
}

// ScorePage writes the relevance of a whole page per topic into dst. A
// model that learnt from segment-sized windows scores each window of the
// page as it scored its training windows, and the page gets the mean; a
// model that learnt from pages scores the page at once.
func (s *Scorer) ScorePage(tokens []string, dst []float64) []float64 {
	return s.page(tokens, dst, s.idx)
}

// PageClasses writes into dst the page's posterior of every class of the
// model (classify.Model.Classes: the topics and the background classes),
// scored as ScorePage scores the topics.
func (s *Scorer) PageClasses(tokens []string, dst []float64) []float64 {
	return s.page(tokens, dst, nil)
}

// page is ScorePage for the classes idx (every class when nil).
func (s *Scorer) page(tokens []string, dst []float64, idx []int) []float64 {
	if s.window == 0 || len(tokens) <= s.window {
		return s.pick(tokens, dst, idx)
	}
	n := len(idx)
	if idx == nil {
		n = len(s.m.Classes())
	}
	dst = dst[:0]
	for range n {
		dst = append(dst, 0)
	}
	buf := s.pool.Get().(*[]float64)
	windows := 0
	for i := 0; i < len(tokens); i += s.window {
		j := min(i+s.window, len(tokens))
		if j-i < s.window/2 {
			break // the short tail, as in training
		}
		post := s.m.Posterior(tokens[i:j], *buf)
		for k := range dst {
			c := k
			if idx != nil {
				c = idx[k]
			}
			dst[k] += post[c]
		}
		*buf = post
		windows++
	}
	s.pool.Put(buf)
	for k := range dst {
		dst[k] /= float64(windows)
	}
	return dst
}

// Threshold is topic i's threshold.
func (s *Scorer) Threshold(i int) float64 { return s.m.Threshold(s.topics[i]) }

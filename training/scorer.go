package training

import (
	"sync"

	"github.com/scent-crawler/scent/classify"
)

// Scorer presents a model's topic posteriors to the crawler: Score gives
// P(topic | tokens) for each topic (the background class left out) and
// Threshold the topic's on-topic threshold. It is safe for concurrent use.
type Scorer struct {
	m      *classify.Model
	topics []string
	idx    []int
	pool   sync.Pool
}

// NewScorer wraps m.
func NewScorer(m *classify.Model) *Scorer {
	s := &Scorer{m: m, topics: m.Topics()}
	for _, t := range s.topics {
		s.idx = append(s.idx, m.Index(t))
	}
	n := len(m.Classes())
	s.pool.New = func() any { b := make([]float64, n); return &b }
	return s
}

// Topics lists the model's topics.
func (s *Scorer) Topics() []string { return s.topics }

// Score writes P(topic | tokens) per topic into dst.
func (s *Scorer) Score(tokens []string, dst []float64) []float64 {
	buf := s.pool.Get().(*[]float64)
	post := s.m.Posterior(tokens, *buf)
	dst = dst[:0]
	for _, i := range s.idx {
		dst = append(dst, post[i])
	}
	*buf = post
	s.pool.Put(buf)
	return dst
}

// Threshold is topic i's threshold.
func (s *Scorer) Threshold(i int) float64 { return s.m.Threshold(s.topics[i]) }

package classify

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Model is a trained classifier. It is immutable apart from its thresholds,
// and every method is safe for concurrent use.
type Model struct {
	opts    Options // effective parameters, defaults applied
	classes []string
	index   map[string]int
	priors  []float64
	docs    []int
	thresh  []atomicFloat // math.Float64bits of each class's threshold
	terms   []term        // selected terms in χ²max order
	hash    string        // hex SHA-256 of the training set
	meta    map[string]string

	// Derived by prepare from the fields above.
	ids   map[string]int32 // term → index into terms
	base  []float64        // per class: log prior (+ Σ log(1−θ) for binary)
	delta []float64        // per term and class, flattened: term*len(classes)+class
	pool  sync.Pool        // *scratch for duplicate detection in Posterior
}

// term is one selected term with its statistics.
type term struct {
	text    string
	chi2max float64
	df      int       // training documents containing the term
	chi2    []float64 // per class
	theta   []float64 // per class, strictly inside (0, 1)
}

// scratch marks the terms already counted in one binary Posterior call.
type scratch struct {
	seen []uint32 // per term: the generation that last saw it
	gen  uint32
}

// next starts a new document: marks of earlier generations no longer count.
func (s *scratch) next() {
	s.gen++
	if s.gen == 0 { // wrapped: forget every mark
		clear(s.seen)
		s.gen = 1
	}
}

// prepare derives the scoring tables from the model's classes and terms.
// Train and Load both end here, so a saved and reloaded model computes the
// same sums in the same order.
func (m *Model) prepare() {
	nc := len(m.classes)
	m.index = make(map[string]int, nc)
	for i, c := range m.classes {
		m.index[c] = i
	}
	m.ids = make(map[string]int32, len(m.terms))
	m.base = make([]float64, nc)
	m.delta = make([]float64, len(m.terms)*nc)
	mix := m.opts.PriorMix
	for c := range nc {
		m.base[c] = math.Log((1-mix)*m.priors[c] + mix/float64(nc))
	}
	for k, t := range m.terms {
		m.ids[t.text] = int32(k)
		for c, th := range t.theta {
			if m.opts.Event == EventMultinomial {
				m.delta[k*nc+c] = math.Log(th)
				continue
			}
			absent := (1 - m.opts.AbsentDiscount) * math.Log1p(-th)
			m.base[c] += absent
			m.delta[k*nc+c] = math.Log(th) - absent
		}
	}
	n := len(m.terms)
	m.pool.New = func() any { return &scratch{seen: make([]uint32, n)} }
}

// Classes returns the class names in the model's fixed order: topics sorted
// by name, then Other when the model has it. Posterior's result is aligned
// with this order. The caller may modify the returned slice.
func (m *Model) Classes() []string {
	return slices.Clone(m.classes)
}

// Topics returns the classes other than Other, in Classes order.
func (m *Model) Topics() []string {
	out := make([]string, 0, len(m.classes))
	for _, c := range m.classes {
		if c != Other {
			out = append(out, c)
		}
	}
	return out
}

// Index returns the position of class in Classes, or -1 if the model has no
// such class.
func (m *Model) Index(class string) int {
	if i, ok := m.index[class]; ok {
		return i
	}
	return -1
}

// Options returns the parameters the model was trained with, defaults
// applied; Threshold is the initial threshold of every class.
func (m *Model) Options() Options { return m.opts }

// NumTerms returns the number of selected terms (at most Options().K).
func (m *Model) NumTerms() int { return len(m.terms) }

// TrainingHash returns the hex SHA-256 of the training set (see Train).
func (m *Model) TrainingHash() string { return m.hash }

// SetMeta records a key and value saved with the model; call it before
// the model is shared.
func (m *Model) SetMeta(key, value string) {
	if m.meta == nil {
		m.meta = make(map[string]string)
	}
	m.meta[key] = value
}

// Meta returns a value recorded with SetMeta, or "".
func (m *Model) Meta(key string) string { return m.meta[key] }

// Prior returns the prior probability of class, or 0 if it is absent.
func (m *Model) Prior(class string) float64 {
	if i := m.Index(class); i >= 0 {
		return m.priors[i]
	}
	return 0
}

// Documents returns the number of training documents of class, or 0 if it
// is absent.
func (m *Model) Documents(class string) int {
	if i := m.Index(class); i >= 0 {
		return m.docs[i]
	}
	return 0
}

// Theta returns θ of term for each class, aligned with Classes, or nil when
// the term was not selected.
func (m *Model) Theta(term string) []float64 {
	k, ok := m.ids[term]
	if !ok {
		return nil
	}
	return slices.Clone(m.terms[k].theta)
}

// Posterior returns the normalized posterior P(c|d) of every class for the
// document made of tokens, aligned with Classes. Tokens that are not
// selected terms are ignored; under the binary event model a repeated token
// counts once. The result is written into dst when its capacity suffices
// (then Posterior allocates nothing) and into a new slice otherwise.
func (m *Model) Posterior(tokens []string, dst []float64) []float64 {
	dst = m.start(dst)
	if m.opts.Event == EventMultinomial {
		for _, tok := range tokens {
			if k, ok := m.ids[tok]; ok {
				m.add(dst, k)
			}
		}
	} else {
		s := m.pool.Get().(*scratch)
		s.next()
		for _, tok := range tokens {
			if k, ok := m.ids[tok]; ok && s.seen[k] != s.gen {
				s.seen[k] = s.gen
				m.add(dst, k)
			}
		}
		m.pool.Put(s)
	}
	softmax(dst)
	return dst
}

// TermIndex returns the position of term among the model's selected
// terms (0 to NumTerms()-1), or -1 when it is not one of them.
func (m *Model) TermIndex(term string) int32 {
	if k, ok := m.ids[term]; ok {
		return k
	}
	return -1
}

// Term returns the selected term at position k (see TermIndex).
func (m *Model) Term(k int) string { return m.terms[k].text }

// PosteriorOfTerms is Posterior for a document given as the positions of
// its tokens among the selected terms (TermIndex; a negative position,
// a token that is not selected, is ignored), in the tokens' order. It
// returns exactly what Posterior returns for the tokens, without looking
// up a string: for a caller that scores the same documents with many
// models and keeps them as positions.
func (m *Model) PosteriorOfTerms(terms []int32, dst []float64) []float64 {
	dst = m.start(dst)
	if m.opts.Event == EventMultinomial {
		for _, k := range terms {
			if k >= 0 {
				m.add(dst, k)
			}
		}
	} else {
		s := m.pool.Get().(*scratch)
		s.next()
		for _, k := range terms {
			if k >= 0 && s.seen[k] != s.gen {
				s.seen[k] = s.gen
				m.add(dst, k)
			}
		}
		m.pool.Put(s)
	}
	softmax(dst)
	return dst
}

// start returns dst holding the log score of every class before any
// term.
func (m *Model) start(dst []float64) []float64 {
	nc := len(m.classes)
	if cap(dst) < nc {
		dst = make([]float64, nc)
	}
	dst = dst[:nc]
	copy(dst, m.base)
	return dst
}

// add adds term k's log-odds to every class's score.
func (m *Model) add(dst []float64, k int32) {
	nc := len(dst)
	d := m.delta[int(k)*nc : int(k)*nc+nc]
	for c := range dst {
		dst[c] += d[c]
	}
}

// softmax replaces log scores by their normalized exponentials, shifting by
// the maximum first so that the largest term is exp(0) = 1 and nothing
// underflows to an all-zero vector.
func softmax(v []float64) {
	mx := math.Inf(-1)
	for _, x := range v {
		if x > mx {
			mx = x
		}
	}
	var sum float64
	for i, x := range v {
		e := math.Exp(x - mx)
		v[i] = e
		sum += e
	}
	for i := range v {
		v[i] /= sum
	}
}

// Threshold returns the on-topic threshold of class, or 0 if the model has
// no such class.
func (m *Model) Threshold(class string) float64 {
	i := m.Index(class)
	if i < 0 {
		return 0
	}
	return math.Float64frombits(m.thresh[i].Load())
}

// SetThreshold sets the on-topic threshold of class to v, which must be in
// (0, 1].
func (m *Model) SetThreshold(class string, v float64) error {
	i := m.Index(class)
	if i < 0 {
		return fmt.Errorf("set threshold: no class %q (classes: %s)", class, strings.Join(m.classes, ", "))
	}
	if !validThreshold(v) {
		return fmt.Errorf("set threshold of %q: %v is outside (0, 1]", class, v)
	}
	m.thresh[i].Store(math.Float64bits(v))
	return nil
}

// Relevant reports, for each class in Classes order, whether post (a
// Posterior result) reaches that class's threshold. Other is never relevant,
// nor is a class missing from a short post. The result is written into dst
// when its capacity suffices.
func (m *Model) Relevant(post []float64, dst []bool) []bool {
	nc := len(m.classes)
	if cap(dst) < nc {
		dst = make([]bool, nc)
	}
	dst = dst[:nc]
	for i, c := range m.classes {
		dst[i] = c != Other && i < len(post) &&
			post[i] >= math.Float64frombits(m.thresh[i].Load())
	}
	return dst
}

// Top returns the n selected terms with the highest χ² for class, highest
// first, ties broken by term. It returns nil for an unknown class.
func (m *Model) Top(class string, n int) []Feature {
	i := m.Index(class)
	if i < 0 || n <= 0 {
		return nil
	}
	out := make([]Feature, len(m.terms))
	for k, t := range m.terms {
		out[k] = Feature{Term: t.text, Chi2: t.chi2[i]}
	}
	slices.SortFunc(out, func(a, b Feature) int {
		if a.Chi2 != b.Chi2 {
			if a.Chi2 > b.Chi2 {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Term, b.Term)
	})
	if n < len(out) {
		out = out[:n:n]
	}
	return out
}

// atomicFloat holds math.Float64bits of a float64.
type atomicFloat = atomic.Uint64

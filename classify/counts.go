package classify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/scent-crawler/scent/internal/selection"
)

// Counts holds the statistics the binary Naive Bayes model is made of —
// per class, the weight of its documents, and per term and class, the
// weight of the documents containing the term — so that a model can
// learn incrementally: documents are added (or their class weights moved)
// one at a time, and Model selects terms by χ² and estimates θ from the
// counts at any moment. Naive Bayes counts add, so the model built from
// Counts equals the model Train builds from the same documents.
//
// A document's weight may be split between classes (w to one class, 1−w
// to another), as when a link's value is only partly known. Counts is not
// safe for concurrent use.
type Counts struct {
	classes []string
	docs    []float64          // per class
	ids     map[string]int32   // term → row
	words   []string           // row → term
	dfc     []float64          // row*nc + class
	limit   int                // most terms kept; 0: no limit
	seen    map[int32]struct{} // scratch: terms of one document
}

// NewCounts returns empty counts over classes (at least two, distinct).
// limit bounds the number of distinct terms kept (0: no bound): when a new
// term would pass it, the terms seen in less than one document's weight in
// all are forgotten first, so memory stays bounded however long the
// stream of documents.
func NewCounts(classes []string, limit int) (*Counts, error) {
	if len(classes) < 2 {
		return nil, fmt.Errorf("counts: %w", ErrTooFewClasses)
	}
	for i, c := range classes {
		if c == "" || slices.Contains(classes[:i], c) {
			return nil, fmt.Errorf("counts: class %q is empty or repeated", c)
		}
	}
	if limit < 0 {
		return nil, errors.New("counts: negative term limit")
	}
	return &Counts{classes: slices.Clone(classes), docs: make([]float64, len(classes)), ids: make(map[string]int32), limit: limit}, nil
}

// Classes returns the class names, in the order Add takes them.
func (c *Counts) Classes() []string { return slices.Clone(c.classes) }

// Docs returns the weight of the documents of class i.
func (c *Counts) Docs(i int) float64 { return c.docs[i] }

// Terms returns the number of distinct terms counted.
func (c *Counts) Terms() int { return len(c.words) }

// Add counts a document of class i with weight w (negative w takes a
// document's weight back). A repeated token counts once; empty tokens are
// ignored.
func (c *Counts) Add(i int, tokens []string, w float64) {
	if w == 0 || i < 0 || i >= len(c.classes) {
		return
	}
	nc := len(c.classes)
	c.docs[i] += w
	if c.seen == nil {
		c.seen = make(map[int32]struct{})
	}
	clear(c.seen)
	for _, tok := range tokens {
		if tok == "" {
			continue
		}
		k, ok := c.ids[tok]
		if !ok {
			if w < 0 {
				continue // never counted: nothing to take back
			}
			if c.limit > 0 && len(c.words) >= c.limit {
				c.prune()
			}
			k = int32(len(c.words))
			c.ids[tok] = k
			c.words = append(c.words, tok)
			c.dfc = append(c.dfc, make([]float64, nc)...)
		}
		if _, dup := c.seen[k]; dup {
			continue
		}
		c.seen[k] = struct{}{}
		c.dfc[int(k)*nc+i] += w
	}
}

// Move moves weight w of a document already counted from class from to
// class to: the same as Add(from, tokens, -w) then Add(to, tokens, w).
func (c *Counts) Move(from, to int, tokens []string, w float64) {
	c.Add(from, tokens, -w)
	c.Add(to, tokens, w)
}

// prune forgets the terms whose documents weigh less than 1 in all, or,
// when none does, the half of the terms with the least weight.
func (c *Counts) prune() {
	nc := len(c.classes)
	total := func(k int) float64 {
		var s float64
		for _, v := range c.dfc[k*nc : k*nc+nc] {
			s += v
		}
		return s
	}
	keep := make([]int, 0, len(c.words))
	for k := range c.words {
		if total(k) >= 1-1e-9 {
			keep = append(keep, k)
		}
	}
	if len(keep) > len(c.words)*3/4 {
		slices.SortStableFunc(keep, func(a, b int) int {
			ta, tb := total(a), total(b)
			switch {
			case ta > tb:
				return -1
			case ta < tb:
				return 1
			}
			return 0
		})
		keep = keep[:len(c.words)/2]
		slices.Sort(keep)
	}
	words := make([]string, 0, len(keep))
	dfc := make([]float64, 0, len(keep)*nc)
	clear(c.ids)
	for _, k := range keep {
		c.ids[c.words[k]] = int32(len(words))
		words = append(words, c.words[k])
		dfc = append(dfc, c.dfc[k*nc:k*nc+nc]...)
	}
	c.words, c.dfc = words, dfc
}

// Model builds the binary Naive Bayes model of the counts as Train does:
// the K terms of highest χ²max (ties broken by term), θ by the m-estimate
// with the term's document frequency as prior, priors from the class
// weights. At least two classes need some weight; a class without any
// has prior 0 and is never predicted. opts.Event must be EventBinary.
func (c *Counts) Model(opts Options) (*Model, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("counts model: %w", err)
	}
	opts = opts.withDefaults()
	if opts.Event != EventBinary {
		return nil, errors.New("counts model: only the binary event model learns incrementally")
	}
	nc := len(c.classes)
	var n float64
	with := 0
	for _, d := range c.docs {
		if d > 1e-12 {
			with++
			n += d
		}
	}
	if with < 2 {
		return nil, fmt.Errorf("counts model: %w with documents", ErrTooFewClasses)
	}
	chiMax := make([]float64, len(c.words))
	df := make([]float64, len(c.words))
	order := make([]int, 0, len(c.words))
	for k := range c.words {
		row := c.dfc[k*nc : k*nc+nc]
		for _, v := range row {
			df[k] += v
		}
		if df[k] <= 1e-12 {
			continue
		}
		best := 0.0
		for ci, a := range row {
			b := df[k] - a
			best = max(best, Chi2(a, b, c.docs[ci]-a, n-c.docs[ci]-b))
		}
		chiMax[k] = best
		order = append(order, k)
	}
	order = topTerms(order, chiMax, c.words, opts.K, opts.MinChi2)
	terms := make([]term, len(order))
	for i, k := range order {
		t := term{text: c.words[k], chi2max: chiMax[k], df: wholeDocs(df[k], 1),
			chi2: make([]float64, nc), theta: make([]float64, nc)}
		p := df[k] / n
		for ci := range nc {
			a := c.dfc[k*nc+ci]
			t.chi2[ci] = Chi2(a, df[k]-a, c.docs[ci]-a, n-c.docs[ci]-(df[k]-a))
			t.theta[ci] = clampTheta((c.dfc[k*nc+ci] + opts.M*p) / (c.docs[ci] + opts.M))
		}
		terms[i] = t
	}
	m := &Model{opts: opts, classes: slices.Clone(c.classes), priors: make([]float64, nc), docs: make([]int, nc),
		thresh: newThresholds(nc, opts.Threshold), terms: terms, hash: c.hash()}
	for ci := range nc {
		m.priors[ci] = max(c.docs[ci], 0) / n
		m.docs[ci] = wholeDocs(c.docs[ci], 0)
	}
	m.prepare()
	return m, nil
}

// topTerms returns the k rows of order with the largest chiMax, largest
// first, ties in the order of their words, less those below least
// (Options.MinChi2) unless none reaches it. Only the rows at or above the
// k-th largest value are sorted: a learner's counts hold a hundred
// thousand rows, most of them tied at the bottom.
func topTerms(order []int, chiMax []float64, words []string, k int, least float64) []int {
	if len(order) > k && k > 0 {
		vals := make([]float64, len(order))
		for i, r := range order {
			vals[i] = chiMax[r]
		}
		cut := selection.KthLargest(vals, k)
		kept := order[:0]
		for _, r := range order {
			if chiMax[r] >= cut {
				kept = append(kept, r)
			}
		}
		order = kept
	}
	slices.SortFunc(order, func(a, b int) int {
		if chiMax[a] != chiMax[b] {
			if chiMax[a] > chiMax[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(words[a], words[b])
	})
	order = order[:min(len(order), k)]
	if n := sort.Search(len(order), func(i int) bool { return chiMax[order[i]] < least }); n > 0 {
		order = order[:n]
	}
	return order
}

// wholeDocs is a weight of documents as the whole number a model file
// keeps: rounded up, and no less than least, so that a term counted only in
// documents of weight below one (a learner's prior) still has a document
// and no term has more documents than the classes in all.
func wholeDocs(w float64, least int) int {
	return max(least, int(math.Ceil(w-1e-9)))
}

// hash is the hex SHA-256 of the counts (classes, class weights, and
// every term with its weights in the order first counted): the training
// set hash of the models built from them.
func (c *Counts) hash() string {
	h := sha256.New()
	var buf []byte
	for i, cl := range c.classes {
		buf = binary.AppendUvarint(buf[:0], uint64(len(cl)))
		buf = append(buf, cl...)
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(c.docs[i]))
		h.Write(buf)
	}
	nc := len(c.classes)
	for k, w := range c.words {
		buf = binary.AppendUvarint(buf[:0], uint64(len(w)))
		buf = append(buf, w...)
		for _, v := range c.dfc[k*nc : k*nc+nc] {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// countsFile is the saved form of Counts.
type countsFile struct {
	Format  string      `json:"format"`
	Classes []string    `json:"classes"`
	Docs    []float64   `json:"docs"`
	Limit   int         `json:"limit"`
	Terms   []string    `json:"terms"`
	DF      [][]float64 `json:"df"` // per term, per class
}

const countsFormat = "scent-counts/1"

// MarshalJSON saves the counts.
func (c *Counts) MarshalJSON() ([]byte, error) {
	f := countsFile{Format: countsFormat, Classes: c.classes, Docs: c.docs, Limit: c.limit, Terms: c.words, DF: make([][]float64, len(c.words))}
	nc := len(c.classes)
	for k := range c.words {
		f.DF[k] = c.dfc[k*nc : k*nc+nc]
	}
	return json.Marshal(f)
}

// UnmarshalJSON loads counts saved by MarshalJSON.
func (c *Counts) UnmarshalJSON(data []byte) error {
	var f countsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("counts: %w", err)
	}
	if f.Format != countsFormat {
		return fmt.Errorf("counts: format %q, want %q", f.Format, countsFormat)
	}
	n, err := NewCounts(f.Classes, f.Limit)
	if err != nil {
		return err
	}
	if len(f.Docs) != len(f.Classes) || len(f.DF) != len(f.Terms) {
		return errors.New("counts: classes, documents and terms do not match")
	}
	if !allCounts(f.Docs) {
		return errors.New("counts: a class's documents are negative or not finite")
	}
	copy(n.docs, f.Docs)
	nc := len(f.Classes)
	for k, t := range f.Terms {
		if len(f.DF[k]) != nc {
			return fmt.Errorf("counts: term %q has %d class counts, want %d", t, len(f.DF[k]), nc)
		}
		if !allCounts(f.DF[k]) {
			return fmt.Errorf("counts: term %q has a count negative or not finite", t)
		}
		if _, dup := n.ids[t]; dup || t == "" {
			return fmt.Errorf("counts: term %q is empty or repeated", t)
		}
		n.ids[t] = int32(k)
		n.words = append(n.words, t)
		n.dfc = append(n.dfc, f.DF[k]...)
	}
	*c = *n
	return nil
}

// allCounts reports whether every one of vs is a count: finite and not
// negative.
func allCounts(vs []float64) bool {
	for _, v := range vs {
		if !(v >= 0) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

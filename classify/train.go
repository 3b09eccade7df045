package classify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
)

// thetaMin keeps θ strictly inside (0, 1) so that log θ and log(1−θ) stay
// finite.
const thetaMin = 1e-9

// Train builds a model from labelled examples. Every example needs a class
// name; there must be at least two classes, and each class needs at least
// one token somewhere in its documents. The selected terms are the K with the
// highest χ²max (fewer when the vocabulary is smaller), ties broken by term.
//
// The model records the SHA-256 of the training set: each example is hashed
// on its own (class, then tokens, every string length-prefixed), the
// digests are sorted, and the sorted digests are hashed, so the hash does
// not depend on the order of examples.
func Train(examples []Example, opts Options) (*Model, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	opts = opts.withDefaults()
	t, err := tallyOf(examples, opts.Event == EventMultinomial, false)
	if err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	m := t.model(opts)
	m.hash = trainingHash(examples)
	return m, nil
}

// tally is what a model is made of: the classes in the fixed order, the
// documents of each, and per term and class the documents holding it (and
// its occurrences, for the multinomial model).
type tally struct {
	classes []string
	docs    []int    // per class
	tokens  []int    // per class: tokens counted
	words   []string // row → term
	dfc     []int32  // row*nc + class
	cnt     []int64  // row*nc + class, multinomial only
	// With rows: each example's class, and the rows of its terms,
	// rows[at[i]:at[i+1]], so that its counts can be taken back.
	class []int
	rows  []int32
	at    []int
}

// tallyOf counts examples; multi counts occurrences too, rows records
// each example's terms.
func tallyOf(examples []Example, multi, rows bool) (*tally, error) {
	if len(examples) == 0 {
		return nil, fmt.Errorf("train: %w", ErrNoExamples)
	}
	// Classes and their document counts, in the fixed order.
	count := map[string]int{}
	for i, ex := range examples {
		if ex.Class == "" {
			return nil, fmt.Errorf("train: example %d has no class", i)
		}
		count[ex.Class]++
	}
	classes := orderClasses(count)
	if len(classes) < 2 {
		return nil, fmt.Errorf("train: %w: only %q", ErrTooFewClasses, classes[0])
	}
	nc := len(classes)
	cls := make(map[string]int, nc)
	t := &tally{classes: classes, docs: make([]int, nc), tokens: make([]int, nc)}
	for i, c := range classes {
		cls[c] = i
		t.docs[i] = count[c]
	}
	if rows {
		t.class = make([]int, 0, len(examples))
		t.at = make([]int, 1, len(examples)+1)
	}

	// Vocabulary with per-class document frequency (and occurrence counts
	// for the multinomial model).
	ids := map[string]int32{}
	var seen []int32
	for i, ex := range examples {
		c := cls[ex.Class]
		gen := int32(i + 1)
		for _, tok := range ex.Tokens {
			if tok == "" {
				continue
			}
			k, ok := ids[tok]
			if !ok {
				k = int32(len(t.words))
				ids[tok] = k
				t.words = append(t.words, tok)
				t.dfc = append(t.dfc, make([]int32, nc)...)
				if multi {
					t.cnt = append(t.cnt, make([]int64, nc)...)
				}
				seen = append(seen, 0)
			}
			t.tokens[c]++
			if multi {
				t.cnt[int(k)*nc+c]++
			}
			if seen[k] != gen {
				seen[k] = gen
				t.dfc[int(k)*nc+c]++
				if rows {
					t.rows = append(t.rows, k)
				}
			}
		}
		if rows {
			t.class = append(t.class, c)
			t.at = append(t.at, len(t.rows))
		}
	}
	return t, nil
}

// check says which class has no token, if one has none.
func (t *tally) check() error {
	for c, n := range t.tokens {
		if n == 0 {
			return fmt.Errorf("train: class %q has no tokens in its %d documents", t.classes[c], t.docs[c])
		}
	}
	return nil
}

// model builds the model of the tally: the opts.K terms of highest
// χ²max, ties broken by term, less those below opts.MinChi2 (topTerms),
// and θ by the m-estimate. Terms no document
// holds (a fold's tally with its own examples taken back) are not
// candidates. opts has its defaults; the model records no training-set
// hash.
func (t *tally) model(opts Options) *Model {
	nc := len(t.classes)
	n := 0
	for _, d := range t.docs {
		n += d
	}
	multi := opts.Event == EventMultinomial

	// χ² of every term and class, and the selection by χ²max.
	chi := make([]float64, len(t.words)*nc)
	chiMax := make([]float64, len(t.words))
	df := make([]int, len(t.words))
	order := make([]int, 0, len(t.words))
	for k := range t.words {
		row := t.dfc[k*nc : k*nc+nc]
		for _, v := range row {
			df[k] += int(v)
		}
		if df[k] == 0 {
			continue
		}
		best := 0.0
		for c, v := range row {
			a := float64(v)
			b := float64(df[k]) - a
			x := Chi2(a, b, float64(t.docs[c])-a, float64(n-t.docs[c])-b)
			chi[k*nc+c] = x
			best = max(best, x)
		}
		chiMax[k] = best
		order = append(order, k)
	}
	order = topTerms(order, chiMax, t.words, opts.K, opts.MinChi2)

	// θ by the m-estimate.
	var tot []float64 // multinomial: selected-term occurrences per class
	var all float64
	if multi {
		tot = make([]float64, nc)
		for _, k := range order {
			for c := range nc {
				tot[c] += float64(t.cnt[k*nc+c])
				all += float64(t.cnt[k*nc+c])
			}
		}
	}
	terms := make([]term, len(order))
	for i, k := range order {
		tm := term{
			text:    t.words[k],
			chi2max: chiMax[k],
			df:      df[k],
			chi2:    slices.Clone(chi[k*nc : k*nc+nc]),
			theta:   make([]float64, nc),
		}
		if multi {
			var ck float64
			for c := range nc {
				ck += float64(t.cnt[k*nc+c])
			}
			p := ck / all
			for c := range nc {
				tm.theta[c] = clampTheta((float64(t.cnt[k*nc+c]) + opts.M*p) / (tot[c] + opts.M))
			}
		} else {
			p := float64(df[k]) / float64(n)
			for c := range nc {
				tm.theta[c] = clampTheta((float64(t.dfc[k*nc+c]) + opts.M*p) / (float64(t.docs[c]) + opts.M))
			}
		}
		terms[i] = tm
	}

	m := &Model{
		opts:    opts,
		classes: slices.Clone(t.classes),
		priors:  make([]float64, nc),
		docs:    slices.Clone(t.docs),
		thresh:  newThresholds(nc, opts.Threshold),
		terms:   terms,
	}
	for c := range nc {
		m.priors[c] = float64(t.docs[c]) / float64(n)
	}
	m.prepare()
	return m
}

// orderClasses returns the class names in the model's fixed order: topics
// sorted by name, then Other.
func orderClasses(count map[string]int) []string {
	out := make([]string, 0, len(count))
	hasOther := false
	for c := range count {
		if c == Other {
			hasOther = true
			continue
		}
		out = append(out, c)
	}
	slices.Sort(out)
	if hasOther {
		out = append(out, Other)
	}
	return out
}

// clampTheta keeps θ strictly inside (0, 1).
func clampTheta(v float64) float64 {
	return math.Min(math.Max(v, thetaMin), 1-thetaMin)
}

// newThresholds returns n thresholds set to v.
func newThresholds(n int, v float64) []atomicFloat {
	out := make([]atomicFloat, n)
	for i := range out {
		out[i].Store(math.Float64bits(v))
	}
	return out
}

// trainingHash returns the order-independent SHA-256 of examples described
// at Train.
func trainingHash(examples []Example) string {
	digests := make([][sha256.Size]byte, len(examples))
	var buf []byte
	for i, ex := range examples {
		buf = buf[:0]
		buf = binary.AppendUvarint(buf, uint64(len(ex.Class)))
		buf = append(buf, ex.Class...)
		buf = binary.AppendUvarint(buf, uint64(len(ex.Tokens)))
		for _, t := range ex.Tokens {
			buf = binary.AppendUvarint(buf, uint64(len(t)))
			buf = append(buf, t...)
		}
		digests[i] = sha256.Sum256(buf)
	}
	slices.SortFunc(digests, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, d := range digests {
		h.Write(d[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

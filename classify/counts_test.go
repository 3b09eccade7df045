package classify

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// countsOf adds examples to new counts over the classes Train would use.
func countsOf(t *testing.T, examples []Example, limit int) *Counts {
	t.Helper()
	count := map[string]int{}
	for _, ex := range examples {
		count[ex.Class]++
	}
	classes := orderClasses(count)
	c, err := NewCounts(classes, limit)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		c.Add(slices.Index(classes, ex.Class), ex.Tokens, 1)
	}
	return c
}

// sameModel fails unless a and b select the same terms in the same order
// with the same θ, priors and posteriors on docs.
func sameModel(t *testing.T, a, b *Model, docs []Example) {
	t.Helper()
	if !slices.Equal(a.classes, b.classes) || len(a.terms) != len(b.terms) {
		t.Fatalf("classes %v / %v, terms %d / %d", a.classes, b.classes, len(a.terms), len(b.terms))
	}
	for k := range a.terms {
		ta, tb := a.terms[k], b.terms[k]
		if ta.text != tb.text || math.Abs(ta.chi2max-tb.chi2max) > 1e-9*max(1, ta.chi2max) {
			t.Fatalf("term %d: %q χ² %v, want %q χ² %v", k, tb.text, tb.chi2max, ta.text, ta.chi2max)
		}
		for c := range ta.theta {
			if math.Abs(ta.theta[c]-tb.theta[c]) > 1e-12 {
				t.Fatalf("θ of %q, class %d: %v, want %v", ta.text, c, tb.theta[c], ta.theta[c])
			}
		}
	}
	for c := range a.priors {
		if math.Abs(a.priors[c]-b.priors[c]) > 1e-12 {
			t.Fatalf("prior %d: %v, want %v", c, b.priors[c], a.priors[c])
		}
	}
	for _, d := range docs {
		pa, pb := a.Posterior(d.Tokens, nil), b.Posterior(d.Tokens, nil)
		for c := range pa {
			if math.Abs(pa[c]-pb[c]) > 1e-9 {
				t.Fatalf("posterior of %v: %v, want %v", d.Tokens, pb, pa)
			}
		}
	}
}

func TestCounts_Model_equalsTrain(t *testing.T) {
	s := newSynth(7, []string{"course", "faculty", Other}, 40, 300, 0.3)
	docs := s.docs(60, 25)
	for _, k := range []int{10, 200, 100000} {
		opts := Options{K: k, M: 2}
		want, err := Train(docs, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := countsOf(t, docs, 0).Model(opts)
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, want, got, docs[:50])
	}
}

func TestCounts_Move(t *testing.T) {
	// A document counted as "not", then moved whole to "leads", is the
	// same as one counted as "leads" from the start; a partial move
	// splits its weight.
	docs := []Example{
		{Class: "leads", Tokens: []string{"people", "faculty"}},
		{Class: "not", Tokens: []string{"news", "faculty"}},
		{Class: "not", Tokens: []string{"photos"}},
		{Class: "leads", Tokens: []string{"professor"}},
	}
	moved, err := NewCounts([]string{"leads", "not"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	moved.Add(1, docs[0].Tokens, 1) // first judged "not" …
	for _, d := range docs[1:] {
		moved.Add(slices.Index([]string{"leads", "not"}, d.Class), d.Tokens, 1)
	}
	moved.Move(1, 0, docs[0].Tokens, 1) // … then found to lead
	want, err := Train(docs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := moved.Model(Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, want, got, docs)

	half, _ := NewCounts([]string{"leads", "not"}, 0)
	half.Add(1, []string{"people"}, 1)
	half.Move(1, 0, []string{"people"}, 0.5)
	half.Add(1, []string{"news"}, 1)
	if got := half.Docs(0); got != 0.5 {
		t.Errorf("leads weight %v, want 0.5", got)
	}
	m, err := half.Model(Options{M: 1})
	if err != nil {
		t.Fatal(err)
	}
	// θ(people | leads) = (0.5 + 1·p) / (0.5 + 1), p = 1/2.
	if th := m.Theta("people"); math.Abs(th[0]-1.0/1.5) > 1e-12 {
		t.Errorf("θ(people|leads) = %v, want %v", th[0], 1.0/1.5)
	}
}

func TestCounts_marshal(t *testing.T) {
	s := newSynth(3, []string{"a", Other}, 20, 100, 0.4)
	docs := s.docs(30, 20)
	c := countsOf(t, docs, 0)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Counts
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	want, _ := c.Model(Options{K: 50})
	got, err := back.Model(Options{K: 50})
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, want, got, docs[:20])
	for _, bad := range []string{`{`, `{"format":"x"}`, `{"format":"scent-counts/1","classes":["a","b"],"docs":[1],"terms":[],"df":[]}`,
		`{"format":"scent-counts/1","classes":["a","b"],"docs":[1,1],"terms":["x","x"],"df":[[1,0],[0,1]]}`,
		`{"format":"scent-counts/1","classes":["a"],"docs":[1],"terms":[],"df":[]}`,
		`{"format":"scent-counts/1","classes":["a","b"],"docs":[-1,1],"terms":[],"df":[]}`,
		`{"format":"scent-counts/1","classes":["a","b"],"docs":[1,1],"terms":["x"],"df":[[1,-0.5]]}`,
		`{"format":"scent-counts/1","classes":["a","b"],"docs":[1,1e309],"terms":[],"df":[]}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestCounts_limit(t *testing.T) {
	c, err := NewCounts([]string{"a", "b"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	s := newSynth(5, []string{"a", "b"}, 500, 5000, 0.5)
	for _, d := range s.docs(400, 30) {
		c.Add(slices.Index([]string{"a", "b"}, d.Class), d.Tokens, 1)
		if c.Terms() > 100 {
			t.Fatalf("%d terms kept, limit 100", c.Terms())
		}
	}
	if _, err := c.Model(Options{K: 20}); err != nil {
		t.Fatal(err)
	}
}

func TestNewCounts_errors(t *testing.T) {
	for _, classes := range [][]string{nil, {"a"}, {"a", "a"}, {"a", ""}} {
		if _, err := NewCounts(classes, 0); err == nil {
			t.Errorf("%v: no error", classes)
		}
	}
	if _, err := NewCounts([]string{"a", "b"}, -1); err == nil {
		t.Error("negative limit: no error")
	}
	c, _ := NewCounts([]string{"a", "b"}, 0)
	c.Add(0, []string{"x"}, 1)
	if _, err := c.Model(Options{}); err == nil {
		t.Error("a class without documents: no error")
	}
	if _, err := c.Model(Options{Event: EventMultinomial}); err == nil {
		t.Error("multinomial: no error")
	}
}

func BenchmarkCounts_Model(b *testing.B) {
	s := newSynth(9, []string{"leads", "not"}, 2000, 20000, 0.3)
	c, _ := NewCounts([]string{"leads", "not"}, 0)
	for _, d := range s.docs(2000, 30) {
		c.Add(slices.Index([]string{"leads", "not"}, d.Class), d.Tokens, 1)
	}
	b.ReportMetric(float64(c.Terms()), "terms")
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Model(Options{K: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCounts_Add(b *testing.B) {
	s := newSynth(9, []string{"leads", "not"}, 2000, 20000, 0.3)
	docs := s.docs(500, 30)
	c, _ := NewCounts([]string{"leads", "not"}, 0)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		c.Add(slices.Index([]string{"leads", "not"}, d.Class), d.Tokens, 1)
	}
}

// TestCounts_Model_fractionalWeights saves and loads a model built from
// documents of weight below one (a learner's prior): a term counted only
// in such documents keeps one document in the file.
func TestCounts_Model_fractionalWeights(t *testing.T) {
	c, err := NewCounts([]string{"a", "b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.Add(0, []string{"x", "y"}, 0.25)
	c.Add(0, []string{"x"}, 0.25)
	c.Add(1, []string{"z"}, 0.25)
	c.Add(1, []string{"w"}, 1)
	m, err := c.Model(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&b)
	if err != nil {
		t.Fatalf("load a model of fractional counts: %v", err)
	}
	sameModel(t, m, back, []Example{{Tokens: []string{"x"}}, {Tokens: []string{"z", "w"}}})
	for _, tm := range back.terms {
		if tm.df < 1 {
			t.Errorf("term %q: df %d", tm.text, tm.df)
		}
	}
}

// TestTopTerms checks the selection against a full sort, on values with
// many ties (the learner's counts: most terms seen once).
func TestTopTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		chiMax := make([]float64, n)
		words := make([]string, n)
		for i := range n {
			chiMax[i] = float64(rng.IntN(1 + trial%7))
			words[i] = strconv.Itoa(rng.IntN(1000)) + "w" + strconv.Itoa(i)
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b int) int {
			if c := cmp.Compare(chiMax[b], chiMax[a]); c != 0 {
				return c
			}
			return strings.Compare(words[a], words[b])
		})
		k := 1 + rng.IntN(n+5)
		want = want[:min(k, n)]
		if got := topTerms(slices.Clone(all), chiMax, words, k, 0); !slices.Equal(got, want) {
			t.Fatalf("trial %d, k %d of %d: got %v, want %v", trial, k, n, got, want)
		}
		// A least χ² cuts the terms below it, unless none reaches it.
		least := float64(rng.IntN(8))
		cut := want
		if i := slices.IndexFunc(want, func(r int) bool { return chiMax[r] < least }); i > 0 {
			cut = want[:i]
		}
		if got := topTerms(slices.Clone(all), chiMax, words, k, least); !slices.Equal(got, cut) {
			t.Fatalf("trial %d, k %d of %d, least %v: got %v, want %v", trial, k, n, least, got, cut)
		}
	}
}

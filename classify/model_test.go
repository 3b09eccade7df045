package classify

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// threeClassModel is a synthetic model with three classes and K = 1000.
func threeClassModel(tb testing.TB, event Event) (*Model, *synth) {
	tb.Helper()
	s := newSynth(3, []string{"course", "faculty", Other}, 500, 3000, 0.3)
	m, err := Train(s.docs(200, 200), Options{K: 1000, Event: event})
	if err != nil {
		tb.Fatal(err)
	}
	return m, s
}

func checkDistribution(t *testing.T, what string, post []float64) {
	t.Helper()
	var sum float64
	for _, p := range post {
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Fatalf("%s: posterior %v has a value outside [0, 1]", what, post)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("%s: posterior %v sums to %v", what, post, sum)
	}
}

func TestModel_Classes(t *testing.T) {
	ex := []Example{
		{Class: Other, Tokens: []string{"x"}},
		{Class: "zoo", Tokens: []string{"y"}},
		{Class: "art", Tokens: []string{"z"}},
	}
	m, err := Train(ex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classes(); !slices.Equal(got, []string{"art", "zoo", Other}) {
		t.Errorf("Classes() = %v", got)
	}
	if got := m.Topics(); !slices.Equal(got, []string{"art", "zoo"}) {
		t.Errorf("Topics() = %v", got)
	}
	for i, c := range []string{"art", "zoo", Other, "nope", ""} {
		want := i
		if i > 2 {
			want = -1
		}
		if got := m.Index(c); got != want {
			t.Errorf("Index(%q) = %d, want %d", c, got, want)
		}
	}
	cl := m.Classes()
	cl[0] = "changed"
	if m.Classes()[0] != "art" {
		t.Error("Classes() exposes the model's slice")
	}
}

func TestModel_Posterior(t *testing.T) {
	for _, event := range []Event{EventBinary, EventMultinomial} {
		m, s := threeClassModel(t, event)
		for i, c := range m.Classes() {
			d := s.doc(c, 30)
			post := m.Posterior(d.Tokens, nil)
			checkDistribution(t, event.String(), post)
			best := slices.Index(post, slices.Max(post))
			if best != i {
				t.Errorf("%v: a %s segment scored %v (classes %v)", event, c, post, m.Classes())
			}
		}
		// dst with enough capacity is reused; a short one is replaced.
		dst := make([]float64, 1, 8)
		got := m.Posterior([]string{"course1"}, dst)
		if &got[0] != &dst[:1][0] || len(got) != 3 {
			t.Errorf("%v: Posterior did not reuse dst", event)
		}
		if got := m.Posterior(nil, make([]float64, 0, 2)); len(got) != 3 {
			t.Errorf("%v: Posterior with small dst returned %d values", event, len(got))
		}
	}
}

// PriorMix shrinks the priors toward uniform: the ratio of two classes'
// posteriors moves by the ratio of their mixed priors over their priors,
// whatever the document; the mix goes through Save and Load.
func TestModel_PriorMix(t *testing.T) {
	ex := []Example{
		{Class: "rare", Tokens: []string{"desk", "phone"}},
		{Class: "common", Tokens: []string{"office", "research"}},
		{Class: "common", Tokens: []string{"research", "papers"}},
		{Class: "common", Tokens: []string{"teaching", "research"}},
		{Class: Other, Tokens: []string{"weather"}},
	}
	plain, err := Train(ex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mixed, err := Train(ex, Options{PriorMix: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	prior := map[string]float64{"rare": 0.2, "common": 0.6, Other: 0.2}
	moved := func(c string) float64 { return (0.7*prior[c] + 0.3/3) / prior[c] }
	doc := []string{"desk", "research"}
	for _, d := range [][]string{nil, doc, {"weather", "phone"}} {
		p, q := plain.Posterior(d, nil), mixed.Posterior(d, nil)
		checkDistribution(t, "mixed", q)
		for i, a := range mixed.Classes() {
			for j, b := range mixed.Classes() {
				got := (q[i] / q[j]) / (p[i] / p[j])
				if w := moved(a) / moved(b); math.Abs(got-w) > 1e-9 {
					t.Errorf("%q: %s/%s moved by %v, want %v", d, a, b, got, w)
				}
			}
		}
	}
	rare := mixed.Index("rare")
	if q, p := mixed.Posterior(doc, nil)[rare], plain.Posterior(doc, nil)[rare]; q <= p {
		t.Errorf("the rare class's posterior %v is not above its unmixed %v", q, p)
	}
	loaded, err := Load(bytes.NewReader(saved(t, mixed)))
	if err != nil {
		t.Fatal(err)
	}
	if l, q := loaded.Posterior(doc, nil), mixed.Posterior(doc, nil); !slices.Equal(l, q) || loaded.Options().PriorMix != 0.3 {
		t.Errorf("loaded: %v (mix %v), saved %v (0.3)", l, loaded.Options().PriorMix, q)
	}
	for _, bad := range []float64{1, -0.1, math.NaN()} {
		if _, err := Train(ex, Options{PriorMix: bad}); err == nil {
			t.Errorf("prior mix %v accepted", bad)
		}
	}
}

// AbsentDiscount weakens the evidence of the selected terms a document
// lacks: each class's score adds (1 − d)·log(1−θ) for them, which the
// posterior is checked against, computed from the model's own θ; the
// discount goes through Save and Load, and values outside [0, 1] are
// refused.
func TestModel_AbsentDiscount(t *testing.T) {
	ex := []Example{
		{Class: "course", Tokens: []string{"syllabus", "homework", "quarter", "cse"}},
		{Class: "course", Tokens: []string{"syllabus", "exam", "quarter", "cse"}},
		{Class: "faculty", Tokens: []string{"professor", "research", "cse"}},
		{Class: Other, Tokens: []string{"weather", "news"}},
	}
	for _, d := range []float64{0, 0.5, 1} {
		m, err := Train(ex, Options{AbsentDiscount: d})
		if err != nil {
			t.Fatal(err)
		}
		// A course page of another site: none of the first site's words
		// but "syllabus".
		doc := []string{"syllabus", "lecture"}
		want := make([]float64, len(m.Classes()))
		for i, c := range m.Classes() {
			want[i] = math.Log(m.Prior(c))
		}
		for k := 0; k < m.NumTerms(); k++ {
			th := m.Theta(m.Term(k))
			for i := range want {
				if slices.Contains(doc, m.Term(k)) {
					want[i] += math.Log(th[i])
				} else {
					want[i] += (1 - d) * math.Log1p(-th[i])
				}
			}
		}
		softmax(want)
		got := m.Posterior(doc, nil)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("discount %v: posterior %v, want %v", d, got, want)
				break
			}
		}
		loaded, err := Load(bytes.NewReader(saved(t, m)))
		if err != nil {
			t.Fatal(err)
		}
		if l := loaded.Posterior(doc, nil); !slices.Equal(l, got) || loaded.Options().AbsentDiscount != d {
			t.Errorf("loaded: %v (discount %v), saved %v (%v)", l, loaded.Options().AbsentDiscount, got, d)
		}
	}
	// The course page of another site is judged a course page once what
	// it lacks weighs less.
	plain, _ := Train(ex, Options{})
	disc, _ := Train(ex, Options{AbsentDiscount: 0.5})
	doc, course := []string{"syllabus", "lecture"}, plain.Index("course")
	if p, q := plain.Posterior(doc, nil)[course], disc.Posterior(doc, nil)[course]; q <= p {
		t.Errorf("course posterior %v with the discount, %v without: want it higher", q, p)
	}
	for _, bad := range []float64{-0.1, 1.01, math.NaN()} {
		if _, err := Train(ex, Options{AbsentDiscount: bad}); err == nil {
			t.Errorf("absent discount %v accepted", bad)
		}
	}
}

func TestModel_Posterior_longDocument(t *testing.T) {
	for _, event := range []Event{EventBinary, EventMultinomial} {
		m, s := threeClassModel(t, event)
		// 200,000 tokens: the multinomial log scores reach about −10⁶.
		d := s.doc("faculty", 200000)
		post := m.Posterior(d.Tokens, nil)
		checkDistribution(t, event.String(), post)
		if post[m.Index("faculty")] < 0.999 {
			t.Errorf("%v: long faculty document: %v", event, post)
		}
		// A long document of one class's words mixed with another's still
		// normalizes.
		mixed := append(s.doc("course", 100000).Tokens, d.Tokens...)
		checkDistribution(t, event.String()+" mixed", m.Posterior(mixed, nil))
	}
	v := []float64{-1e6, -1e6 - 2, -3e6}
	softmax(v)
	if !near(v[0], 1/(1+math.Exp(-2))) || v[2] != 0 {
		t.Errorf("softmax(−1e6, −1e6−2, −3e6) = %v", v)
	}
}

func TestModel_Posterior_allocs(t *testing.T) {
	for _, event := range []Event{EventBinary, EventMultinomial} {
		m, s := threeClassModel(t, event)
		d := s.doc("course", 600).Tokens
		dst := make([]float64, 3)
		allocs := testing.AllocsPerRun(200, func() { dst = m.Posterior(d, dst) })
		if allocs != 0 {
			t.Errorf("%v: Posterior allocates %v times per call", event, allocs)
		}
		rel := make([]bool, 3)
		allocs = testing.AllocsPerRun(200, func() { rel = m.Relevant(dst, rel) })
		if allocs != 0 {
			t.Errorf("%v: Relevant allocates %v times per call", event, allocs)
		}
	}
}

func TestModel_Posterior_concurrent(t *testing.T) {
	m, s := threeClassModel(t, EventBinary)
	docs := make([][]string, 64)
	want := make([][]float64, len(docs))
	for i := range docs {
		docs[i] = s.doc(m.Classes()[i%3], 40).Tokens
		docs[i] = append(docs[i], docs[i][:10]...) // duplicates exercise the marks
		want[i] = m.Posterior(docs[i], nil)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			dst := make([]float64, 3)
			for r := range 200 {
				i := (g*31 + r) % len(docs)
				dst = m.Posterior(docs[i], dst)
				if !slices.Equal(dst, want[i]) {
					errs <- "concurrent posterior differs"
					return
				}
				if r%50 == 0 {
					if err := m.SetThreshold("course", 0.5+float64(g)/100); err != nil {
						errs <- err.Error()
						return
					}
					_ = m.Relevant(dst, nil)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestScratch_next(t *testing.T) {
	s := &scratch{seen: make([]uint32, 3)}
	s.next()
	s.seen[0] = s.gen
	s.next()
	if s.seen[0] == s.gen {
		t.Error("a mark survived the next document")
	}
	s.gen = math.MaxUint32
	s.seen[1] = 1 // stale mark that would match after the counter wraps
	s.next()
	if s.gen != 1 || s.seen[1] == s.gen || s.seen[0] != 0 {
		t.Errorf("after wrap: gen %d, marks %v", s.gen, s.seen)
	}
}

func TestModel_SetThreshold(t *testing.T) {
	m, err := Train(tinySet(), Options{Threshold: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Threshold("sport"); got != 0.9 {
		t.Errorf("initial threshold = %v, want 0.9", got)
	}
	tests := []struct {
		class string
		v     float64
		ok    bool
	}{
		{"sport", 0.5, true},
		{"sport", 1, true},
		{Other, 0.3, true},
		{"sport", 0, false},
		{"sport", -0.2, false},
		{"sport", 1.5, false},
		{"sport", math.NaN(), false},
		{"nope", 0.5, false},
	}
	for _, tt := range tests {
		before := m.Threshold(tt.class)
		err := m.SetThreshold(tt.class, tt.v)
		if (err == nil) != tt.ok {
			t.Errorf("SetThreshold(%q, %v) = %v, want ok=%v", tt.class, tt.v, err, tt.ok)
		}
		got := m.Threshold(tt.class)
		if tt.ok && got != tt.v {
			t.Errorf("after SetThreshold(%q, %v): %v", tt.class, tt.v, got)
		}
		if !tt.ok && got != before {
			t.Errorf("failed SetThreshold(%q, %v) changed it to %v", tt.class, tt.v, got)
		}
	}
	if m.Threshold("nope") != 0 {
		t.Error("Threshold of an unknown class is not 0")
	}
}

func TestModel_Relevant(t *testing.T) {
	ex := []Example{
		{Class: "a", Tokens: []string{"x"}},
		{Class: "b", Tokens: []string{"y"}},
		{Class: Other, Tokens: []string{"z"}},
	}
	m, err := Train(ex, Options{Threshold: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetThreshold("b", 0.2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		post []float64
		want []bool
	}{
		{[]float64{0.5, 0.1, 0.4}, []bool{true, false, false}},
		{[]float64{0.4, 0.2, 0.4}, []bool{true, true, false}}, // ≥ is on-topic
		{[]float64{0.1, 0.1, 0.8}, []bool{false, false, false}},
		{[]float64{0.9}, []bool{true, false, false}}, // short input
		{nil, []bool{false, false, false}},
	}
	for _, tt := range tests {
		if got := m.Relevant(tt.post, nil); !slices.Equal(got, tt.want) {
			t.Errorf("Relevant(%v) = %v, want %v", tt.post, got, tt.want)
		}
	}
}

func TestModel_Top(t *testing.T) {
	m, _ := threeClassModel(t, EventBinary)
	top := m.Top("course", 30)
	if len(top) != 30 {
		t.Fatalf("Top(course, 30) has %d terms", len(top))
	}
	topical := 0
	for i, f := range top {
		if i > 0 && (f.Chi2 > top[i-1].Chi2 || f.Chi2 == top[i-1].Chi2 && f.Term < top[i-1].Term) {
			t.Errorf("Top not ordered at %d: %v after %v", i, f, top[i-1])
		}
		if strings.HasPrefix(f.Term, "course") {
			topical++
		}
	}
	// With three classes a faculty term also discriminates against course,
	// but course's own terms must dominate.
	if topical < 15 {
		t.Errorf("only %d of course's top 30 terms are course words: %v", topical, top)
	}
	if m.Top("nope", 3) != nil || m.Top("course", 0) != nil {
		t.Error("Top of unknown class or n = 0 is not nil")
	}
	if got := len(m.Top("course", 1e6)); got != m.NumTerms() {
		t.Errorf("Top(course, 1e6) has %d terms, want %d", got, m.NumTerms())
	}
}

func FuzzModel_Posterior(f *testing.F) {
	m, err := Train([]Example{
		{Class: "sport", Tokens: strings.Fields("ball goal ball match team")},
		{Class: "sport", Tokens: strings.Fields("ball team coach")},
		{Class: Other, Tokens: strings.Fields("vote party team election")},
		{Class: Other, Tokens: strings.Fields("tax vote")},
	}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("ball ball goal")
	f.Add("")
	f.Add("vote tax tax unknown ball")
	f.Fuzz(func(t *testing.T, s string) {
		toks := strings.Fields(s)
		post := m.Posterior(toks, nil)
		checkDistribution(t, "fuzz", post)
		again := m.Posterior(append(toks, toks...), nil)
		if !slices.Equal(post, again) {
			t.Errorf("binary posterior changed when every token was repeated: %v vs %v", post, again)
		}
	})
}

func BenchmarkModel_Posterior(b *testing.B) {
	m, s := threeClassModel(b, EventBinary)
	if m.NumTerms() != 1000 {
		b.Fatalf("model has %d terms", m.NumTerms())
	}
	for _, bc := range []struct {
		name string
		n    int
	}{{"segment", 30}, {"page", 600}} {
		docs := make([][]string, 64)
		for i := range docs {
			docs[i] = s.doc(m.Classes()[i%3], bc.n).Tokens
		}
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]float64, 3)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = m.Posterior(docs[i%len(docs)], dst)
				i++
			}
		})
	}
}

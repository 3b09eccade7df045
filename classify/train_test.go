package classify

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tinySet is small enough to check every number by hand:
//
//	sport: {ball, goal, ball}, {ball}    other: {vote}
//
// N = 3, n_sport = 2, n_other = 1; df: ball 2, goal 1, vote 1.
func tinySet() []Example {
	return []Example{
		{Class: "sport", Tokens: []string{"ball", "goal", "ball"}},
		{Class: "sport", Tokens: []string{"ball"}},
		{Class: Other, Tokens: []string{"vote"}},
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestTrain_binaryByHand(t *testing.T) {
	m, err := Train(tinySet(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classes(); !slices.Equal(got, []string{"sport", Other}) {
		t.Fatalf("Classes() = %v", got)
	}
	if !near(m.Prior("sport"), 2.0/3) || !near(m.Prior(Other), 1.0/3) {
		t.Errorf("priors = %v, %v; want 2/3, 1/3", m.Prior("sport"), m.Prior(Other))
	}
	if m.Documents("sport") != 2 || m.Documents(Other) != 1 {
		t.Errorf("documents = %d, %d", m.Documents("sport"), m.Documents(Other))
	}
	// θ = (n_c + m·p)/(n + m) with m = 1 and p = df/N.
	want := map[string][2]float64{
		"ball": {(2 + 2.0/3) / 3, (0 + 2.0/3) / 2}, // 8/9, 1/3
		"goal": {(1 + 1.0/3) / 3, (0 + 1.0/3) / 2}, // 4/9, 1/6
		"vote": {(0 + 1.0/3) / 3, (1 + 1.0/3) / 2}, // 1/9, 2/3
	}
	for term, w := range want {
		th := m.Theta(term)
		if len(th) != 2 || !near(th[0], w[0]) || !near(th[1], w[1]) {
			t.Errorf("Theta(%q) = %v, want %v", term, th, w)
		}
	}
	// χ²: ball and vote 3 (tie broken by term), goal 3/4.
	top := m.Top("sport", 10)
	wantTop := []Feature{{"ball", 3}, {"vote", 3}, {"goal", 0.75}}
	if len(top) != 3 {
		t.Fatalf("Top = %v", top)
	}
	for i := range top {
		if top[i].Term != wantTop[i].Term || !near(top[i].Chi2, wantTop[i].Chi2) {
			t.Errorf("Top[%d] = %v, want %v", i, top[i], wantTop[i])
		}
	}
	// P(sport|{ball}) ∝ 2/3 · 8/9 · (1−4/9) · (1−1/9) = 640/2187,
	// P(other|{ball}) ∝ 1/3 · 1/3 · (1−1/6) · (1−2/3) = 5/162.
	// The duplicate token counts once.
	sport, other := 640.0/2187, 5.0/162
	post := m.Posterior([]string{"ball", "unknown", "ball"}, nil)
	if !near(post[0], sport/(sport+other)) || !near(post[1], other/(sport+other)) {
		t.Errorf("Posterior({ball}) = %v, want [%v %v]", post, sport/(sport+other), other/(sport+other))
	}
	// An empty document gets Π(1−θ)·prior: sport 2/3·1/9·5/9·8/9, other 1/3·2/3·5/6·1/3.
	sport, other = 2.0/3*1/9*5/9*8/9, 1.0/3*2/3*5/6*1/3
	post = m.Posterior(nil, nil)
	if !near(post[0], sport/(sport+other)) {
		t.Errorf("Posterior({}) = %v, want sport %v", post, sport/(sport+other))
	}
}

func TestTrain_multinomialByHand(t *testing.T) {
	m, err := Train(tinySet(), Options{Event: EventMultinomial, M: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Occurrences: ball 3 (sport), goal 1 (sport), vote 1 (other); all = 5,
	// tot_sport = 4, tot_other = 1. θ = (cnt + m·p)/(tot + m), p = cnt_k/all.
	want := map[string][2]float64{
		"ball": {(3 + 0.6) / 5, 0.6 / 2},
		"goal": {(1 + 0.2) / 5, 0.2 / 2},
		"vote": {0.2 / 5, (1 + 0.2) / 2},
	}
	sum := [2]float64{}
	for term, w := range want {
		th := m.Theta(term)
		if len(th) != 2 || !near(th[0], w[0]) || !near(th[1], w[1]) {
			t.Errorf("Theta(%q) = %v, want %v", term, th, w)
		}
		sum[0] += th[0]
		sum[1] += th[1]
	}
	if !near(sum[0], 1) || !near(sum[1], 1) {
		t.Errorf("θ sums over terms = %v, want 1 per class", sum)
	}
	// Repeats count: P(sport|ball ball) ∝ 2/3·0.72², P(other) ∝ 1/3·0.3².
	sport, other := 2.0/3*0.72*0.72, 1.0/3*0.3*0.3
	post := m.Posterior([]string{"ball", "ball"}, nil)
	if !near(post[0], sport/(sport+other)) {
		t.Errorf("Posterior(ball ball) = %v, want sport %v", post, sport/(sport+other))
	}
}

func TestTrain_selection(t *testing.T) {
	m, err := Train(tinySet(), Options{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumTerms() != 2 || m.Theta("ball") == nil || m.Theta("vote") == nil || m.Theta("goal") != nil {
		t.Errorf("K=2 kept %d terms: ball %v vote %v goal %v", m.NumTerms(), m.Theta("ball"), m.Theta("vote"), m.Theta("goal"))
	}
	m, err = Train(tinySet(), Options{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Theta("ball") == nil || m.NumTerms() != 1 {
		t.Errorf("K=1 tie between ball and vote not broken by term: ball %v", m.Theta("ball"))
	}
	if got := m.Options().K; got != 1 {
		t.Errorf("Options().K = %d", got)
	}

	// A term in every document has θ = 1 before clamping.
	ex := []Example{
		{Class: "a", Tokens: []string{"all", "x"}},
		{Class: "b", Tokens: []string{"all", "y"}},
	}
	m, err = Train(ex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range m.Theta("all") {
		if !(th > 0 && th < 1) {
			t.Errorf("θ(all) = %v, not clamped inside (0, 1)", th)
		}
	}
	post := m.Posterior([]string{"all", "x"}, nil)
	if !(post[0] > 0.5) || math.IsNaN(post[0]) {
		t.Errorf("Posterior(all x) = %v", post)
	}
}

// TestTrain_minChi2: of the K terms, MinChi2 keeps those whose χ²max
// reaches it; a word of one or two documents, which ten examples a class
// leave to chance, is left out; when no term reaches it the K are kept;
// the model file keeps it.
func TestTrain_minChi2(t *testing.T) {
	// ball in every sport document (χ² 20), vote in every other one
	// (χ² 20), goal in two sport documents (χ² 2.2), and a word of its own
	// in each document (χ² 1.05).
	var ex []Example
	for i := range 10 {
		sport := []string{"ball", "own" + strconv.Itoa(i)}
		if i < 2 {
			sport = append(sport, "goal")
		}
		ex = append(ex, Example{Class: "sport", Tokens: sport}, Example{Class: Other, Tokens: []string{"vote", "other" + strconv.Itoa(i)}})
	}
	terms := func(m *Model) []string {
		var out []string
		for _, w := range []string{"ball", "vote", "goal", "own0", "other0"} {
			if m.Theta(w) != nil {
				out = append(out, w)
			}
		}
		return out
	}
	for _, tt := range []struct {
		opts Options
		want []string
		n    int
	}{
		{Options{}, []string{"ball", "vote", "goal", "own0", "other0"}, 23},
		{Options{MinChi2: SignificantChi2}, []string{"ball", "vote"}, 2},
		{Options{MinChi2: SignificantChi2, K: 1}, []string{"ball"}, 1},
		{Options{MinChi2: 2}, []string{"ball", "vote", "goal"}, 3},
		{Options{MinChi2: 100, K: 3}, []string{"ball", "vote", "goal"}, 3}, // none reaches 100: the K
	} {
		m, err := Train(ex, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := terms(m); !slices.Equal(got, tt.want) || m.NumTerms() != tt.n {
			t.Errorf("%+v: %d terms %v, want %d %v", tt.opts, m.NumTerms(), got, tt.n, tt.want)
		}
		l, err := Load(bytes.NewReader(saved(t, m)))
		if err != nil {
			t.Fatal(err)
		}
		if l.Options().MinChi2 != tt.opts.MinChi2 {
			t.Errorf("%+v: MinChi2 %v after a reload", tt.opts, l.Options().MinChi2)
		}
	}
	if _, err := Train(ex, Options{MinChi2: -1}); err == nil {
		t.Error("MinChi2 -1 accepted")
	}
}

func TestTrain_errors(t *testing.T) {
	tests := []struct {
		name    string
		ex      []Example
		opts    Options
		is      error
		message string
	}{
		{"no examples", nil, Options{}, ErrNoExamples, "no training examples"},
		{"one class", []Example{{Class: "a", Tokens: []string{"x"}}}, Options{}, ErrTooFewClasses, `only "a"`},
		{"unnamed class", []Example{{Class: "a", Tokens: []string{"x"}}, {Tokens: []string{"y"}}}, Options{}, nil, "example 1 has no class"},
		{"empty class", []Example{{Class: "a", Tokens: []string{"x"}}, {Class: "b", Tokens: []string{"", ""}}, {Class: "b"}}, Options{}, nil, `class "b" has no tokens in its 2 documents`},
		{"bad options", tinySet(), Options{K: -3}, nil, "K is -3"},
	}
	for _, tt := range tests {
		_, err := Train(tt.ex, tt.opts)
		if err == nil {
			t.Errorf("%s: Train succeeded", tt.name)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v is not %v", tt.name, err, tt.is)
		}
		if !strings.Contains(err.Error(), tt.message) {
			t.Errorf("%s: error %q does not say %q", tt.name, err, tt.message)
		}
	}
}

func TestTrain_trainingHash(t *testing.T) {
	a, err := Train(tinySet(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev := tinySet()
	slices.Reverse(rev)
	b, err := Train(rev, Options{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.TrainingHash() != b.TrainingHash() || len(a.TrainingHash()) != 64 {
		t.Errorf("hash depends on example order: %s vs %s", a.TrainingHash(), b.TrainingHash())
	}
	// Moving a token boundary or a class changes the hash.
	changed := [][]Example{
		{{Class: "sport", Tokens: []string{"ballgoal", "ball"}}, tinySet()[1], tinySet()[2]},
		{{Class: "sport", Tokens: []string{"ball", "goal", "ball"}}, {Class: "sportball"}, tinySet()[2]},
		{{Class: Other, Tokens: []string{"ball", "goal", "ball"}}, tinySet()[1], {Class: "sport", Tokens: []string{"vote"}}},
	}
	for i, ex := range changed {
		if h := trainingHash(ex); h == a.TrainingHash() {
			t.Errorf("change %d kept the hash %s", i, h)
		}
	}
}

func BenchmarkTrain(b *testing.B) {
	s := newSynth(7, []string{"course", "faculty", Other}, 400, 4000, 0.3)
	ex := s.docs(667, 200) // 2,001 documents of 200 tokens
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(ex, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

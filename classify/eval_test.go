package classify

import (
	"errors"
	"strings"
	"testing"
)

func TestCrossValidate_separable(t *testing.T) {
	// Disjoint vocabularies: every held-out document is classified right.
	s := newSynth(11, []string{"course", "faculty", Other}, 50, 0, 1)
	ex := s.docs(40, 30)
	for _, event := range []Event{EventBinary, EventMultinomial} {
		ev, err := CrossValidate(ex, 5, Options{Event: event}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Folds != 5 || ev.Documents != 120 || ev.Accuracy != 1 || len(ev.Topics) != 2 {
			t.Errorf("%v: %+v", event, ev)
		}
		for _, c := range []string{"course", "faculty"} {
			sc, ok := ev.Topic(c)
			if !ok {
				t.Fatalf("%v: no score for %s", event, c)
			}
			if sc.Precision != 1 || sc.Recall != 1 || sc.F1 != 1 || sc.Support != 40 ||
				sc.TruePositives != 40 || sc.FalsePositives != 0 || sc.FalseNegatives != 0 {
				t.Errorf("%v: %s: %+v", event, c, sc)
			}
		}
		if _, ok := ev.Topic(Other); ok {
			t.Errorf("%v: Other is scored as a topic", event)
		}
	}
}

func TestCrossValidate_counts(t *testing.T) {
	// Two topics whose documents are indistinguishable: each gets posterior
	// about 1/2, so with threshold 0.4 every document is predicted as both.
	var ex []Example
	for range 10 {
		ex = append(ex, Example{Class: "a", Tokens: []string{"same"}}, Example{Class: "b", Tokens: []string{"same"}})
	}
	ev, err := CrossValidate(ex, 2, Options{Threshold: 0.4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"a", "b"} {
		sc, _ := ev.Topic(c)
		if sc.TruePositives != 10 || sc.FalsePositives != 10 || sc.FalseNegatives != 0 ||
			sc.Precision != 0.5 || sc.Recall != 1 || !near(sc.F1, 2.0/3) {
			t.Errorf("%s: %+v", c, sc)
		}
	}
	// With threshold 0.76 no document is predicted: precision 0 by convention.
	ev, err = CrossValidate(ex, 2, Options{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := ev.Topic("a"); sc.TruePositives != 0 || sc.FalseNegatives != 10 || sc.Precision != 0 || sc.Recall != 0 || sc.F1 != 0 {
		t.Errorf("a at 0.76: %+v", sc)
	}
}

func TestCrossValidate_deterministic(t *testing.T) {
	s := newSynth(5, []string{"course", Other}, 100, 300, 0.05)
	ex := s.docs(30, 20)
	a, err := CrossValidate(ex, 3, Options{}, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CrossValidate(ex, 3, Options{}, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a.Topics[0] != b.Topics[0] || a.Accuracy != b.Accuracy {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
}

func TestCrossValidate_errors(t *testing.T) {
	three := []Example{
		{Class: "a", Tokens: []string{"x"}}, {Class: "a", Tokens: []string{"x"}}, {Class: "a", Tokens: []string{"x"}},
		{Class: "b", Tokens: []string{"y"}}, {Class: "b", Tokens: []string{"y"}},
	}
	tests := []struct {
		name    string
		ex      []Example
		folds   int
		opts    Options
		is      error
		message string
	}{
		{"one fold", three, 1, Options{}, nil, "1 folds, need at least 2"},
		{"no examples", nil, 2, Options{}, ErrNoExamples, "no training examples"},
		{"one class", three[:3], 2, Options{}, ErrTooFewClasses, `only "a"`},
		{"small class", three, 3, Options{}, nil, `class "b" has 2 documents, fewer than 3 folds`},
		{"bad options", three, 2, Options{M: -1}, nil, "M is -1"},
		{"unnamed", append([]Example{{Tokens: []string{"z"}}}, three...), 2, Options{}, nil, "example 0 has no class"},
	}
	for _, tt := range tests {
		_, err := CrossValidate(tt.ex, tt.folds, tt.opts, 1)
		if err == nil {
			t.Errorf("%s: CrossValidate succeeded", tt.name)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v is not %v", tt.name, err, tt.is)
		}
		if !strings.Contains(err.Error(), tt.message) {
			t.Errorf("%s: error %q does not say %q", tt.name, err, tt.message)
		}
	}
}

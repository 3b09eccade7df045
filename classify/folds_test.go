package classify

import (
	"bytes"
	"errors"
	"testing"
)

// savedUnhashed is m as Save writes it, its training-set hash left out.
func savedUnhashed(t *testing.T, m *Model) []byte {
	t.Helper()
	h := m.hash
	m.hash = ""
	defer func() { m.hash = h }()
	return saved(t, m)
}

// TestTrainFolds_equalsTrain: each fold's model is the one Train builds
// from the examples outside the fold, to the bit, in both event models;
// so is a fold whose training set lacks a class, which the counts cannot
// make.
func TestTrainFolds_equalsTrain(t *testing.T) {
	s := newSynth(11, []string{"course", "faculty", "student", Other}, 40, 300, 0.3)
	docs := s.docs(30, 25)
	docs = append(docs, Example{Class: "staff", Tokens: []string{"office", "hours"}}, Example{Class: "staff", Tokens: []string{"system", "office"}})
	const folds = 5
	fold := make([]int, len(docs))
	for i := range docs {
		fold[i] = i%(folds+1) - 1 // -1: in every training set
	}
	fold[len(docs)-2], fold[len(docs)-1] = 3, 3 // staff only in fold 3
	for _, opts := range []Options{{K: 50, M: 2}, {K: 100000, M: 1}, {K: 50, Event: EventMultinomial}} {
		var got []int
		err := TrainFolds(docs, fold, folds, opts, func(k int, m *Model, err error) error {
			got = append(got, k)
			if err != nil {
				t.Fatalf("fold %d: %v", k, err)
			}
			var train []Example
			for i, d := range docs {
				if fold[i] != k {
					train = append(train, d)
				}
			}
			want, err := Train(train, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(savedUnhashed(t, m), savedUnhashed(t, want)) {
				t.Errorf("%+v fold %d: the model differs from Train's", opts, k)
			}
			if k == 3 && m.Index("staff") >= 0 {
				t.Errorf("fold 3 learnt staff, whose examples it holds out")
			}
			return nil
		})
		if err != nil || len(got) != folds {
			t.Fatalf("%+v: %v after folds %v", opts, err, got)
		}
	}
}

// TestTrainFolds_errors: Train's error reaches each, each's error stops
// the folds, and a fold list of the wrong length is refused.
func TestTrainFolds_errors(t *testing.T) {
	docs := []Example{{Class: "a", Tokens: []string{"x"}}, {Class: "b", Tokens: []string{"y"}}, {Class: "a", Tokens: []string{"z"}}}
	var errs []error
	if err := TrainFolds(docs, []int{0, 1, 1}, 2, Options{}, func(k int, m *Model, err error) error {
		errs = append(errs, err)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(errs) != 2 || errs[0] != nil || !errors.Is(errs[1], ErrTooFewClasses) {
		t.Errorf("fold errors %v, want nil then %v", errs, ErrTooFewClasses)
	}
	stop := errors.New("stop")
	n := 0
	if err := TrainFolds(docs, []int{0, 1, 1}, 2, Options{}, func(int, *Model, error) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("each's error: %v after %d folds", err, n)
	}
	if err := TrainFolds(docs, []int{0}, 2, Options{}, func(int, *Model, error) error { return nil }); err == nil {
		t.Error("a fold list shorter than the examples: no error")
	}
}

// BenchmarkTrainFolds: the five models of a cross-validation made from
// counts (folds) against five Trains (train), on 4,200 documents of 300
// tokens over a vocabulary of about 70,000 terms.
func BenchmarkTrainFolds(b *testing.B) {
	s := newSynth(3, []string{"course", "faculty", "student", "project", "staff", Other}, 3000, 50000, 0.3)
	docs := s.docs(700, 300)
	const folds = 5
	fold := make([]int, len(docs))
	for i := range fold {
		fold[i] = i % folds
	}
	opts := Options{K: 1000}
	b.Run("folds", func(b *testing.B) {
		for b.Loop() {
			if err := TrainFolds(docs, fold, folds, opts, func(int, *Model, error) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("train", func(b *testing.B) {
		for b.Loop() {
			for k := range folds {
				var train []Example
				for i, d := range docs {
					if fold[i] != k {
						train = append(train, d)
					}
				}
				if _, err := Train(train, opts); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

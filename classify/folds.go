package classify

import (
	"fmt"
	"slices"
)

// TrainFolds trains the models of a cross-validation: for each fold k in
// [0, folds), in order, the model Train builds from the examples whose
// fold[i] is not k (a fold of -1 is in every training set), handed to each
// with Train's error, if any. each's error stops TrainFolds and is
// returned.
//
// A binary model's examples are counted once, and each fold's model is
// made from those counts with the fold's own examples taken back: the
// same model as Train's, without hashing every token of every training
// set again. A fold model records no training-set hash.
func TrainFolds(examples []Example, fold []int, folds int, opts Options, each func(k int, m *Model, err error) error) error {
	if len(fold) != len(examples) {
		return fmt.Errorf("train folds: %d folds given for %d examples", len(fold), len(examples))
	}
	var all *tally
	if opts.Validate() == nil && opts.Event != EventMultinomial {
		all, _ = tallyOf(examples, false, true) // on error, Train says why
	}
	var train []Example
	for k := range folds {
		var m *Model
		var err error
		if all == nil || !all.hasEveryClassBut(fold, k) {
			// Train's model lacks a class, or Train fails.
			train = train[:0]
			for i, ex := range examples {
				if fold[i] != k {
					train = append(train, ex)
				}
			}
			m, err = Train(train, opts)
		} else {
			m = all.without(fold, k).model(opts.withDefaults())
		}
		if err := each(k, m, err); err != nil {
			return err
		}
	}
	return nil
}

// hasEveryClassBut reports whether every class has an example with a
// term outside fold k.
func (t *tally) hasEveryClassBut(fold []int, k int) bool {
	has := make([]bool, len(t.classes))
	for i, f := range fold {
		if f != k && t.at[i+1] > t.at[i] {
			has[t.class[i]] = true
		}
	}
	return !slices.Contains(has, false)
}

// without returns the tally of the examples outside fold k, a copy.
func (t *tally) without(fold []int, k int) *tally {
	out := &tally{classes: t.classes, docs: slices.Clone(t.docs), words: t.words, dfc: slices.Clone(t.dfc)}
	nc := len(t.classes)
	for i, f := range fold {
		if f != k {
			continue
		}
		c := t.class[i]
		out.docs[c]--
		for _, r := range t.rows[t.at[i]:t.at[i+1]] {
			out.dfc[int(r)*nc+c]--
		}
	}
	return out
}

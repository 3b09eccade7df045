package classify

import (
	"fmt"
	"math/rand/v2"
)

// Evaluation is the result of CrossValidate.
type Evaluation struct {
	// Folds is the number of folds.
	Folds int
	// Documents is the number of evaluated documents.
	Documents int
	// Accuracy is the fraction of documents whose most probable class is
	// their own (Other included).
	Accuracy float64
	// Topics holds one score per topic (every class but Other), in the
	// model's class order.
	Topics []TopicScore
}

// TopicScore is the threshold decision quality for one topic. A document is
// predicted as the topic when its posterior for the topic reaches the
// topic's threshold; a document may be predicted for several topics or for
// none.
type TopicScore struct {
	Class string
	// Support is the number of documents of the topic.
	Support int
	// TruePositives, FalsePositives and FalseNegatives count the decisions.
	TruePositives, FalsePositives, FalseNegatives int
	// Precision is TP/(TP+FP), Recall TP/(TP+FN) and F1 their harmonic
	// mean; each is 0 when its denominator is 0.
	Precision, Recall, F1 float64
}

// Topic returns the score of class and whether the evaluation has it.
func (e Evaluation) Topic(class string) (TopicScore, bool) {
	for _, s := range e.Topics {
		if s.Class == class {
			return s, true
		}
	}
	return TopicScore{}, false
}

// CrossValidate estimates how well models trained with opts classify
// unseen documents, by stratified k-fold cross-validation: the documents of
// each class are shuffled (deterministically from seed) and dealt round the
// folds, each fold is classified by a model trained on the others, and the
// decisions of all folds are pooled. Every class needs at least as many
// documents as there are folds, and folds must be at least 2.
func CrossValidate(examples []Example, folds int, opts Options, seed int64) (Evaluation, error) {
	if folds < 2 {
		return Evaluation{}, fmt.Errorf("cross-validate: %d folds, need at least 2", folds)
	}
	if err := opts.Validate(); err != nil {
		return Evaluation{}, fmt.Errorf("cross-validate: %w", err)
	}
	if len(examples) == 0 {
		return Evaluation{}, fmt.Errorf("cross-validate: %w", ErrNoExamples)
	}
	byClass := map[string][]int{}
	for i, ex := range examples {
		if ex.Class == "" {
			return Evaluation{}, fmt.Errorf("cross-validate: example %d has no class", i)
		}
		byClass[ex.Class] = append(byClass[ex.Class], i)
	}
	count := make(map[string]int, len(byClass))
	for c, idx := range byClass {
		count[c] = len(idx)
	}
	classes := orderClasses(count)
	if len(classes) < 2 {
		return Evaluation{}, fmt.Errorf("cross-validate: %w: only %q", ErrTooFewClasses, classes[0])
	}

	// Stratified assignment: continue the round-robin across classes so
	// that fold sizes differ by at most one.
	fold := make([]int, len(examples))
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ce17))
	next := 0
	for _, c := range classes {
		idx := byClass[c]
		if len(idx) < folds {
			return Evaluation{}, fmt.Errorf("cross-validate: class %q has %d documents, fewer than %d folds", c, len(idx), folds)
		}
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, i := range idx {
			fold[i] = next
			next = (next + 1) % folds
		}
	}

	truth := make(map[string]int, len(classes))
	for i, c := range classes {
		truth[c] = i
	}
	tp := make([]int, len(classes))
	fp := make([]int, len(classes))
	fn := make([]int, len(classes))
	correct := 0
	var post []float64
	var rel []bool
	err := TrainFolds(examples, fold, folds, opts, func(f int, m *Model, err error) error {
		if err != nil {
			return fmt.Errorf("cross-validate: fold %d: %w", f+1, err)
		}
		// Map the fold model's class order onto ours.
		at := make([]int, len(classes))
		for i, c := range classes {
			at[i] = m.Index(c)
		}
		for i, ex := range examples {
			if fold[i] != f {
				continue
			}
			post = m.Posterior(ex.Tokens, post)
			rel = m.Relevant(post, rel)
			want := truth[ex.Class]
			best := 0
			for j := range post {
				if post[j] > post[best] {
					best = j
				}
			}
			if at[want] == best {
				correct++
			}
			for c, name := range classes {
				if name == Other {
					continue
				}
				switch got := rel[at[c]]; {
				case got && c == want:
					tp[c]++
				case got:
					fp[c]++
				case c == want:
					fn[c]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return Evaluation{}, err
	}

	ev := Evaluation{Folds: folds, Documents: len(examples), Accuracy: float64(correct) / float64(len(examples))}
	for c, name := range classes {
		if name == Other {
			continue
		}
		s := TopicScore{
			Class: name, Support: count[name],
			TruePositives: tp[c], FalsePositives: fp[c], FalseNegatives: fn[c],
		}
		s.Precision = ratio(tp[c], tp[c]+fp[c])
		s.Recall = ratio(tp[c], tp[c]+fn[c])
		if s.Precision+s.Recall > 0 {
			s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
		}
		ev.Topics = append(ev.Topics, s)
	}
	return ev, nil
}

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

package classify

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
)

// Other is the name of the background class: the negative examples that
// belong to no topic. Every other class is a topic.
const Other = "other"

// className is the form of the class names scent's seed files give.
var className = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ValidName reports whether name is a class name as a seed file gives
// one, to a topic or a kind of page: lower-case letters, digits, '_',
// '.' and '-', at most 64, and not Other.
func ValidName(name string) bool {
	return className.MatchString(name) && name != Other
}

// NameOf returns the class name a seed file gives a collection's label
// (a folder of pages, a line of a labels file): the label lower-cased
// when that is a class name (ValidName) or Other; else the label
// lower-cased with each run of the characters a class name does not
// allow made one '-', trimmed of '-', '_' and '.' at either end and cut
// to 64 bytes ("kind" when nothing is left). A name that is still none
// ("other" made of "Other!", or "seed", the seed file's role of a start
// URL) takes the suffix "-2". So a label "Course" names the topic
// course, and "Research Staff" research-staff, wherever a label meets a
// topic: a seed file's examples, a labels file, a judged page.
func NameOf(label string) string {
	name := strings.ToLower(strings.TrimSpace(label))
	if name == Other {
		return name
	}
	if !ValidName(name) {
		name = slug(name)
	}
	if !ValidName(name) || name == "seed" {
		name = strings.TrimRight(name[:min(len(name), 62)], "-_.") + "-2"
	}
	return name
}

// slug is s with each run of characters that a class name does not allow
// made one '-', trimmed of '-', '_' and '.' at either end and cut to 64
// bytes, or "kind" when nothing is left.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-_.")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-_.")
	}
	if out == "" {
		return "kind"
	}
	return out
}

// Defaults applied by Options for zero fields.
const (
	DefaultK         = 1000 // terms kept by χ²max
	DefaultM         = 1.0  // m-estimate equivalent sample size
	DefaultThreshold = 0.76 // on-topic posterior threshold (the paper's)
)

// SignificantChi2 is the χ² a term's tie to a class reaches by chance
// once in twenty (the 5 % critical value of χ² with one degree of
// freedom): as Options.MinChi2, a term is kept only when its χ²max says
// more than chance.
const SignificantChi2 = 3.841

// Errors returned by Train and CrossValidate for unusable training sets.
var (
	// ErrNoExamples means the training set is empty.
	ErrNoExamples = errors.New("no training examples")
	// ErrTooFewClasses means the training set holds fewer than two classes.
	ErrTooFewClasses = errors.New("fewer than two classes")
)

// Example is one training document: a page or a link-context segment,
// labelled with its class. Tokens are lower-cased words; they may repeat,
// and empty tokens are ignored.
type Example struct {
	Class  string
	Tokens []string
}

// Feature is a selected term with its χ² score for one class.
type Feature struct {
	Term string
	Chi2 float64
}

// Event is the Naive Bayes event model.
type Event int

const (
	// EventBinary models a document as the set of selected terms it
	// contains (multivariate Bernoulli), as in the paper. It is the default.
	EventBinary Event = iota
	// EventMultinomial models a document as the sequence of its selected
	// term occurrences. It is offered for comparison.
	EventMultinomial
)

// String returns "binary" or "multinomial".
func (e Event) String() string {
	switch e {
	case EventBinary:
		return "binary"
	case EventMultinomial:
		return "multinomial"
	}
	return fmt.Sprintf("Event(%d)", int(e))
}

// ParseEvent returns the Event named by s ("binary" or "multinomial").
func ParseEvent(s string) (Event, error) {
	switch s {
	case "binary":
		return EventBinary, nil
	case "multinomial":
		return EventMultinomial, nil
	}
	return 0, fmt.Errorf("unknown event model %q (want binary or multinomial)", s)
}

// MarshalText encodes the event model by name.
func (e Event) MarshalText() ([]byte, error) {
	if e != EventBinary && e != EventMultinomial {
		return nil, fmt.Errorf("unknown event model %d", int(e))
	}
	return []byte(e.String()), nil
}

// UnmarshalText decodes an event model name written by MarshalText.
func (e *Event) UnmarshalText(b []byte) error {
	v, err := ParseEvent(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Options are the training parameters. The zero value is the paper's
// configuration: 1000 terms, m = 1, binary events, threshold 0.76.
type Options struct {
	// K is the number of terms kept by χ²max; 0 means DefaultK.
	K int
	// M is the m-estimate equivalent sample size; 0 means DefaultM.
	M float64
	// Event is the event model; the zero value is EventBinary.
	Event Event
	// Threshold is the initial on-topic threshold of every class, in (0, 1];
	// 0 means DefaultThreshold.
	Threshold float64
	// PriorMix, in [0, 1), shrinks the class priors toward uniform: a
	// class's prior in the posterior is (1 − PriorMix)·prior +
	// PriorMix/classes, so that a class rare among the training documents
	// is not outweighed before a word is read when the documents judged
	// hold it in another share. 0 (the default) keeps the priors.
	PriorMix float64
	// AbsentDiscount, in [0, 1], weakens what the binary event model
	// reads from the selected terms a document lacks: each adds
	// (1 − AbsentDiscount)·log(1−θ) to a class's score instead of
	// log(1−θ). The pages of one site share words (its template, its
	// name) that a class's θ learns as nearly certain, so a page of
	// another site, lacking them all, counts every one as evidence
	// against the class; discounted, what a page holds weighs more than
	// what it lacks. 0 (the default) is the paper's model; 1 reads
	// present terms only. The multinomial model reads no absent term.
	AbsentDiscount float64
	// MinChi2 is the least χ²max of a term kept: of the K terms of highest
	// χ²max, those below it are left out. With a few training documents
	// most terms' χ² is chance (a word of a few long examples that the
	// few negatives lack), and a model of a thousand such terms finds the
	// class in any long document; SignificantChi2 keeps the terms whose
	// tie to a class is unlikely to be chance. With many documents every
	// one of the K passes. When none passes, the K are kept (a model
	// without terms would score every document alike). 0 (the default)
	// is the paper's selection: the top K whatever their χ².
	MinChi2 float64
}

// Validate reports the first invalid field of o. Zero fields are valid and
// stand for their defaults.
func (o Options) Validate() error {
	if o.K < 0 {
		return fmt.Errorf("options: K is %d, must be positive (or 0 for %d)", o.K, DefaultK)
	}
	if math.IsNaN(o.M) || math.IsInf(o.M, 0) || o.M < 0 {
		return fmt.Errorf("options: M is %v, must be a positive number (or 0 for %v)", o.M, DefaultM)
	}
	if o.Event != EventBinary && o.Event != EventMultinomial {
		return fmt.Errorf("options: unknown event model %d", int(o.Event))
	}
	if math.IsNaN(o.Threshold) || o.Threshold < 0 || o.Threshold > 1 {
		return fmt.Errorf("options: threshold is %v, must be in (0, 1] (or 0 for %v)", o.Threshold, DefaultThreshold)
	}
	if !validPriorMix(o.PriorMix) {
		return fmt.Errorf("options: prior mix is %v, must be in [0, 1)", o.PriorMix)
	}
	if !validAbsentDiscount(o.AbsentDiscount) {
		return fmt.Errorf("options: absent discount is %v, must be in [0, 1]", o.AbsentDiscount)
	}
	if !validMinChi2(o.MinChi2) {
		return fmt.Errorf("options: least χ² is %v, must be a number, 0 or more", o.MinChi2)
	}
	return nil
}

func validMinChi2(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

func validPriorMix(v float64) bool { return v >= 0 && v < 1 }

func validAbsentDiscount(v float64) bool { return v >= 0 && v <= 1 }

// withDefaults returns o with zero fields replaced by their defaults.
func (o Options) withDefaults() Options {
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.M == 0 {
		o.M = DefaultM
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	return o
}

// Chi2 returns the χ² statistic of a term and a class from the 2×2
// contingency table of training documents:
//
//	χ² = N·(AD − CB)² / ((A+C)·(B+D)·(A+B)·(C+D)),  N = A+B+C+D,
//
// where a counts documents of the class containing the term, b documents of
// other classes containing it, c documents of the class without it and d
// documents of other classes without it. A zero denominator (the term or
// the class is in every document or in none) gives 0.
func Chi2(a, b, c, d float64) float64 {
	den := (a + c) * (b + d) * (a + b) * (c + d)
	if den == 0 || math.IsNaN(den) {
		return 0
	}
	n := a + b + c + d
	x := a*d - c*b
	return n * x * x / den
}

// validThreshold reports whether v is a usable on-topic threshold.
func validThreshold(v float64) bool {
	return v > 0 && v <= 1
}

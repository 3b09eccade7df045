package classify

import (
	"fmt"
	"math/rand/v2"
)

// synth generates labelled documents: each class has its own topical words,
// and all classes share a background vocabulary. mix is the probability that
// a token is topical; the rest are background words.
type synth struct {
	classes    []string
	topical    int // topical words per class
	background int // shared words
	mix        float64
	rng        *rand.Rand
	words      map[string][]string // class → topical words, "" → background
}

func newSynth(seed uint64, classes []string, topical, background int, mix float64) *synth {
	s := &synth{
		classes: classes, topical: topical, background: background, mix: mix,
		rng:   rand.New(rand.NewPCG(seed, 1)),
		words: map[string][]string{},
	}
	for _, c := range classes {
		for j := range topical {
			s.words[c] = append(s.words[c], fmt.Sprintf("%s%d", c, j))
		}
	}
	for j := range background {
		s.words[""] = append(s.words[""], fmt.Sprintf("bg%d", j))
	}
	return s
}

// pick draws a word with a roughly Zipfian rank distribution.
func (s *synth) pick(words []string) string {
	r := s.rng.Float64()
	return words[int(r*r*float64(len(words)))]
}

// doc returns one document of class with n tokens.
func (s *synth) doc(class string, n int) Example {
	toks := make([]string, n)
	for i := range toks {
		if s.rng.Float64() < s.mix {
			toks[i] = s.pick(s.words[class])
		} else {
			toks[i] = s.pick(s.words[""])
		}
	}
	return Example{Class: class, Tokens: toks}
}

// docs returns perClass documents of every class, interleaved.
func (s *synth) docs(perClass, n int) []Example {
	var out []Example
	for range perClass {
		for _, c := range s.classes {
			out = append(out, s.doc(c, n))
		}
	}
	return out
}

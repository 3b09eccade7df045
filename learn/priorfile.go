package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/scent-crawler/scent/urlnorm"
)

// priorFormat names the form WritePrior writes and ReadPrior reads.
const priorFormat = "scent-prior/1"

// MaxPriorFileBytes bounds what ReadPrior reads: the links of 4,074
// training pages take 2 MB, so this leaves room for a training set sixty
// times larger while a damaged file cannot take the memory of the crawl.
const MaxPriorFileBytes = 128 << 20

// ErrPriorStale means a kept prior was made for other models or other
// training pages than those it is read for: the key it records differs.
var ErrPriorStale = errors.New("made for other models or training pages")

// Prior is the evidence TrainingLinks gives, as WritePrior keeps it: the
// links between the training pages and how many pages were read.
type Prior struct {
	Links []PriorLink
	Pages int
}

// priorFile is the JSON form of a Prior.
type priorFile struct {
	Format string      `json:"format"`
	Key    string      `json:"key"`
	Topics []string    `json:"topics"`
	Pages  int         `json:"pages"`
	Links  []priorLine `json:"links"`
}

// priorLine is the JSON form of a PriorLink.
type priorLine struct {
	Source string    `json:"source"`
	Target string    `json:"target"`
	Tokens []string  `json:"tokens"`
	Anchor []string  `json:"anchor,omitempty"`
	Base   []float64 `json:"base"`
	Page   []float64 `json:"page"`
	Class  []int8    `json:"class"`
}

// WritePrior writes p to w as JSON, with key (what the prior was made
// from, as the caller fingerprints it) and the topics in the order of
// each link's scores and classes.
func WritePrior(w io.Writer, key string, topics []string, p Prior) error {
	f := priorFile{Format: priorFormat, Key: key, Topics: topics, Pages: p.Pages, Links: make([]priorLine, len(p.Links))}
	for i, l := range p.Links {
		f.Links[i] = priorLine{Source: l.Source.String(), Target: l.Target.String(), Tokens: l.Tokens, Anchor: l.Anchor, Base: l.Base, Page: l.Page, Class: l.Class}
	}
	return json.NewEncoder(w).Encode(f)
}

// ReadPrior reads a prior written by WritePrior for key and topics. A
// prior written with another key gives ErrPriorStale; one with other
// topics, or a link that is not one TrainingLinks gives (a URL that does
// not parse, a score outside [0, 1], a class that is none, a score or
// class per topic missing), an error that says which.
func ReadPrior(r io.Reader, key string, topics []string) (Prior, error) {
	lr := &io.LimitedReader{R: r, N: MaxPriorFileBytes + 1}
	var f priorFile
	dec := json.NewDecoder(lr)
	if err := dec.Decode(&f); err != nil {
		if lr.N <= 0 {
			return Prior{}, fmt.Errorf("prior: larger than %d bytes", MaxPriorFileBytes)
		}
		return Prior{}, fmt.Errorf("prior: %w", err)
	}
	switch {
	case f.Format != priorFormat:
		return Prior{}, fmt.Errorf("prior: format %q, want %q", f.Format, priorFormat)
	case f.Key != key:
		return Prior{}, fmt.Errorf("prior: %w", ErrPriorStale)
	case !slices.Equal(f.Topics, topics):
		return Prior{}, fmt.Errorf("prior: topics %q, want %q", f.Topics, topics)
	case f.Pages < 0:
		return Prior{}, fmt.Errorf("prior: %d pages read", f.Pages)
	}
	p := Prior{Pages: f.Pages, Links: make([]PriorLink, len(f.Links))}
	for i, l := range f.Links {
		pl, err := l.link(len(topics))
		if err != nil {
			return Prior{}, fmt.Errorf("prior: link %d: %w", i+1, err)
		}
		p.Links[i] = pl
	}
	return p, nil
}

// scoreSlack is how far outside [0, 1] a score read back may be: a
// posterior summed from its parts may miss by a rounding.
const scoreSlack = 1e-9

// link checks l and returns it as a PriorLink of n topics.
func (l priorLine) link(n int) (PriorLink, error) {
	src, err := urlnorm.Parse(l.Source)
	if err != nil {
		return PriorLink{}, fmt.Errorf("source: %w", err)
	}
	dst, err := urlnorm.Parse(l.Target)
	if err != nil {
		return PriorLink{}, fmt.Errorf("target: %w", err)
	}
	if src.String() != l.Source || dst.String() != l.Target {
		return PriorLink{}, fmt.Errorf("URL %q or %q not in normal form", l.Source, l.Target)
	}
	if len(l.Base) != n || len(l.Page) != n || len(l.Class) != n {
		return PriorLink{}, fmt.Errorf("%d base scores, %d page scores and %d classes for %d topics", len(l.Base), len(l.Page), len(l.Class), n)
	}
	for _, s := range slices.Concat(l.Base, l.Page) {
		if !(s >= -scoreSlack && s <= 1+scoreSlack) {
			return PriorLink{}, fmt.Errorf("score %v outside [0, 1]", s)
		}
	}
	for _, c := range l.Class {
		if c != PriorLeads && c != PriorNext && c != PriorNot {
			return PriorLink{}, fmt.Errorf("class %d is none of leads (%d), next (%d) and not (%d)", c, PriorLeads, PriorNext, PriorNot)
		}
	}
	return PriorLink{Source: src, Target: dst, Tokens: l.Tokens, Anchor: l.Anchor, Base: l.Base, Page: l.Page, Class: l.Class}, nil
}

package classify

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Model file identification.
const (
	FileFormat  = "scent-model" // value of the file's "format" field
	FileVersion = 1             // the only version this package reads and writes
)

// maxFileSize bounds what Load reads, so a wrong path cannot exhaust memory.
const maxFileSize = 1 << 30

// ErrFormat is wrapped by every Load error about the file's content.
var ErrFormat = errors.New("invalid model file")

// VersionError is returned by Load for a model file of another version.
type VersionError struct {
	Version int // the file's version
}

// Error says which version the file has and which one is supported.
func (e *VersionError) Error() string {
	return fmt.Sprintf("model file has version %d; this scent reads version %d", e.Version, FileVersion)
}

// fileModel is the JSON layout of a model file, version 1.
type fileModel struct {
	Format       string      `json:"format"`
	Version      int         `json:"version"`
	Params       fileParams  `json:"params"`
	Classes      []fileClass `json:"classes"`
	Terms        []fileTerm  `json:"terms"`
	TrainingHash string      `json:"training_hash"`
	// Meta holds what the training program wants to remember with the
	// model (e.g. how its training documents were made); optional.
	Meta map[string]string `json:"meta,omitempty"`
}

type fileParams struct {
	K         int     `json:"k"`
	M         float64 `json:"m"`
	Event     Event   `json:"event"`
	Threshold float64 `json:"threshold"`
	PriorMix  float64 `json:"prior_mix,omitempty"`
	// AbsentDiscount is Options.AbsentDiscount (absent: 0).
	AbsentDiscount float64 `json:"absent_discount,omitempty"`
	// MinChi2 is Options.MinChi2 (absent: 0).
	MinChi2 float64 `json:"min_chi2,omitempty"`
}

type fileClass struct {
	Name      string  `json:"name"`
	Prior     float64 `json:"prior"`
	Documents int     `json:"documents"`
	Threshold float64 `json:"threshold"`
}

type fileTerm struct {
	Term    string    `json:"term"`
	Chi2Max float64   `json:"chi2max"`
	DF      int       `json:"df"`
	Chi2    []float64 `json:"chi2"`
	Theta   []float64 `json:"theta"`
}

// Save writes the model to w as indented JSON: format and version,
// parameters, classes (name, prior, training documents, current threshold),
// the selected terms in χ²max order (term, χ²max, document frequency, χ²
// and θ per class, aligned with classes) and the training-set hash.
func (m *Model) Save(w io.Writer) error {
	f := fileModel{
		Format:  FileFormat,
		Version: FileVersion,
		Params: fileParams{
			K: m.opts.K, M: m.opts.M, Event: m.opts.Event, Threshold: m.opts.Threshold, PriorMix: m.opts.PriorMix, AbsentDiscount: m.opts.AbsentDiscount, MinChi2: m.opts.MinChi2,
		},
		Classes:      make([]fileClass, len(m.classes)),
		Terms:        make([]fileTerm, len(m.terms)),
		TrainingHash: m.hash,
		Meta:         m.meta,
	}
	for i, c := range m.classes {
		f.Classes[i] = fileClass{Name: c, Prior: m.priors[i], Documents: m.docs[i], Threshold: m.Threshold(c)}
	}
	for k, t := range m.terms {
		f.Terms[k] = fileTerm{Term: t.text, Chi2Max: t.chi2max, DF: t.df, Chi2: t.chi2, Theta: t.theta}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load reads a model written by Save. It rejects input that is not JSON,
// is not a scent model, has another version (a *VersionError) or is
// internally inconsistent, saying what is wrong; content errors wrap
// ErrFormat.
func Load(r io.Reader) (*Model, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("load model: %w: larger than %d bytes", ErrFormat, maxFileSize)
	}
	m, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	return m, nil
}

// decode parses and checks a model file.
func decode(b []byte) (*Model, error) {
	// Identify the file before relying on the rest of its layout, which
	// another version may change.
	var head map[string]json.RawMessage
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrFormat, err)
	}
	var format string
	if raw, ok := head["format"]; !ok {
		return nil, fmt.Errorf("%w: no \"format\" field; not a scent model", ErrFormat)
	} else if err := json.Unmarshal(raw, &format); err != nil || format != FileFormat {
		return nil, fmt.Errorf("%w: format is %s, want %q", ErrFormat, raw, FileFormat)
	}
	var version int
	if raw, ok := head["version"]; !ok {
		return nil, fmt.Errorf("%w: no \"version\" field", ErrFormat)
	} else if err := json.Unmarshal(raw, &version); err != nil {
		return nil, fmt.Errorf("%w: version is %s, want an integer", ErrFormat, raw)
	}
	if version != FileVersion {
		return nil, &VersionError{Version: version}
	}

	var f fileModel
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}

	nc := len(f.Classes)
	m := &Model{
		opts: Options{
			K: f.Params.K, M: f.Params.M, Event: f.Params.Event, Threshold: f.Params.Threshold, PriorMix: f.Params.PriorMix, AbsentDiscount: f.Params.AbsentDiscount, MinChi2: f.Params.MinChi2,
		},
		classes: make([]string, nc),
		priors:  make([]float64, nc),
		docs:    make([]int, nc),
		thresh:  newThresholds(nc, 0),
		terms:   make([]term, len(f.Terms)),
		hash:    f.TrainingHash,
		meta:    f.Meta,
	}
	for i, c := range f.Classes {
		m.classes[i] = c.Name
		m.priors[i] = c.Prior
		m.docs[i] = c.Documents
		m.thresh[i].Store(math.Float64bits(c.Threshold))
	}
	for k, t := range f.Terms {
		m.terms[k] = term{text: t.Term, chi2max: t.Chi2Max, df: t.DF, chi2: t.Chi2, theta: t.Theta}
	}
	m.prepare()
	return m, nil
}

// check reports the first inconsistency of a decoded version-1 file.
func (f *fileModel) check() error {
	p := f.Params
	if p.K < 1 {
		return fmt.Errorf("params: k is %d, must be at least 1", p.K)
	}
	if !(p.M > 0) || math.IsInf(p.M, 0) {
		return fmt.Errorf("params: m is %v, must be a positive number", p.M)
	}
	if !validThreshold(p.Threshold) {
		return fmt.Errorf("params: threshold %v is outside (0, 1]", p.Threshold)
	}
	if !validPriorMix(p.PriorMix) {
		return fmt.Errorf("params: prior_mix %v is outside [0, 1)", p.PriorMix)
	}
	if !validAbsentDiscount(p.AbsentDiscount) {
		return fmt.Errorf("params: absent_discount %v is outside [0, 1]", p.AbsentDiscount)
	}
	if !validMinChi2(p.MinChi2) {
		return fmt.Errorf("params: min_chi2 %v is not a number, 0 or more", p.MinChi2)
	}

	if len(f.Classes) < 2 {
		return fmt.Errorf("%d classes, need at least 2", len(f.Classes))
	}
	names := make(map[string]bool, len(f.Classes))
	total := 0
	var priors float64
	for i, c := range f.Classes {
		switch {
		case c.Name == "":
			return fmt.Errorf("class %d has no name", i)
		case names[c.Name]:
			return fmt.Errorf("class %q appears twice", c.Name)
		case !(c.Prior >= 0 && c.Prior <= 1):
			return fmt.Errorf("class %q: prior %v is outside [0, 1]", c.Name, c.Prior)
		case c.Documents < 0 || c.Prior > 0 && c.Documents < 1:
			return fmt.Errorf("class %q: %d training documents, need at least 1 for a prior of %v", c.Name, c.Documents, c.Prior)
		case !validThreshold(c.Threshold):
			return fmt.Errorf("class %q: threshold %v is outside (0, 1]", c.Name, c.Threshold)
		}
		names[c.Name] = true
		total += c.Documents
		priors += c.Prior
	}
	if math.Abs(priors-1) > 1e-6 {
		return fmt.Errorf("class priors sum to %v, not 1", priors)
	}

	if len(f.Terms) > p.K {
		return fmt.Errorf("%d terms, more than k = %d", len(f.Terms), p.K)
	}
	seen := make(map[string]bool, len(f.Terms))
	for _, t := range f.Terms {
		switch {
		case t.Term == "":
			return errors.New("a term is empty")
		case seen[t.Term]:
			return fmt.Errorf("term %q appears twice", t.Term)
		case !(t.Chi2Max >= 0) || math.IsInf(t.Chi2Max, 0):
			return fmt.Errorf("term %q: chi2max %v is not a non-negative number", t.Term, t.Chi2Max)
		case t.DF < 1 || t.DF > total:
			return fmt.Errorf("term %q: df %d is outside 1..%d (training documents)", t.Term, t.DF, total)
		case len(t.Chi2) != len(f.Classes):
			return fmt.Errorf("term %q: %d chi2 values for %d classes", t.Term, len(t.Chi2), len(f.Classes))
		case len(t.Theta) != len(f.Classes):
			return fmt.Errorf("term %q: %d theta values for %d classes", t.Term, len(t.Theta), len(f.Classes))
		}
		seen[t.Term] = true
		for c, x := range t.Chi2 {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("term %q: chi2 of class %q is %v, not a non-negative number", t.Term, f.Classes[c].Name, x)
			}
		}
		for c, th := range t.Theta {
			if !(th > 0 && th < 1) {
				return fmt.Errorf("term %q: theta of class %q is %v, outside (0, 1)", t.Term, f.Classes[c].Name, th)
			}
		}
	}

	if h, err := hex.DecodeString(f.TrainingHash); err != nil || len(h) != 32 {
		return fmt.Errorf("training_hash %q is not 64 hex digits", f.TrainingHash)
	}
	return nil
}

package training

import (
	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/segment"
)

// Settings are the model's settings as a user gives them (the flags of
// scent train, crawl and experiment): the classifier's, the segmenter's
// and what a training document is. Options turns them into the Options
// of Build.
type Settings struct {
	K         int     // features kept by χ²
	M         float64 // m-estimate equivalent sample size
	Event     string  // Naive Bayes event model: binary or multinomial
	Threshold float64 // on-topic threshold of P(topic|link), in (0, 1]
	PriorMix  float64 // share of the class priors shrunk toward uniform, in [0, 1) (classify.Options.PriorMix)
	// AbsentDiscount weakens the evidence of the terms a document lacks,
	// in [0, 1] (classify.Options.AbsentDiscount), or is
	// AutoAbsentDiscount.
	AbsentDiscount float64
	// MinChi2 is the least χ² of a feature kept (classify.Options.MinChi2).
	MinChi2   float64
	Window    int    // tokens of context on each side of a link
	URLTokens bool   // add the words of a link's URL path to its features
	Folds     int    // cross-validation folds (0: none)
	Documents string // what a training document is (ParseDocuments)
	// Backlinks is a CSV file of parent_url,target_url whose link
	// segments become training documents ("" for none).
	Backlinks string
	// BacklinkDB is a crawl database whose stored links to the examples
	// become training documents ("" for none); the caller opens it and
	// gives it as Options.BacklinkSource.
	BacklinkDB string
	// CVThresholds are more thresholds to cross-validate at.
	CVThresholds []float64
	// LabelledNegatives is Options.LabelledNegatives: the seeds' topics
	// may stand for each other's negatives.
	LabelledNegatives bool
}

// AutoAbsentDiscount as Settings.AbsentDiscount discounts the terms a
// document lacks by the site concentration of the examples
// (Seeds.SiteConcentration): the chance that two of them share a host,
// and with it the words a model would learn from the host rather than
// from the class.
const AutoAbsentDiscount = -1

// DefaultSettings are the settings of a model when the user gives none.
func DefaultSettings() Settings {
	return Settings{K: classify.DefaultK, M: classify.DefaultM, Event: "binary", Threshold: classify.DefaultThreshold,
		AbsentDiscount: AutoAbsentDiscount, MinChi2: classify.SignificantChi2, Window: 10, Folds: 5, Documents: "windows"}
}

// Classify returns the classifier's options.
func (s Settings) Classify() (classify.Options, error) {
	ev, err := classify.ParseEvent(s.Event)
	if err != nil {
		return classify.Options{}, err
	}
	o := classify.Options{K: s.K, M: s.M, Event: ev, Threshold: s.Threshold, PriorMix: s.PriorMix, AbsentDiscount: s.AbsentDiscount, MinChi2: s.MinChi2}
	if s.AbsentDiscount == AutoAbsentDiscount {
		o.AbsentDiscount = 0 // Build sets it from the seeds (Options.AutoAbsentDiscount)
	}
	return o, o.Validate()
}

// Segment returns the segmenter's options.
func (s Settings) Segment() segment.Options {
	return segment.Options{Window: s.Window, URLTokens: s.URLTokens}
}

// Options returns the options of Build for these settings, with the
// backlinks of the Backlinks file loaded; src, when not nil, is asked
// for more backlinks.
func (s Settings) Options(src BacklinkSource) (Options, error) {
	co, err := s.Classify()
	if err != nil {
		return Options{}, err
	}
	folds := s.Folds
	if folds == 0 {
		folds = -1
	}
	docs, err := ParseDocuments(s.Documents)
	if err != nil {
		return Options{}, err
	}
	o := Options{Classify: co, Segment: s.Segment(), Folds: folds, Documents: docs, BacklinkSource: src, CVThresholds: s.CVThresholds,
		AutoAbsentDiscount: s.AbsentDiscount == AutoAbsentDiscount, LabelledNegatives: s.LabelledNegatives}
	if s.Backlinks != "" {
		if o.Backlinks, err = LoadBacklinks(s.Backlinks); err != nil {
			return Options{}, err
		}
	}
	return o, nil
}

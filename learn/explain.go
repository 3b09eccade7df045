package learn

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/scent-crawler/scent/classify"
)

// Explanation is what a learner learnt, per topic, read from its saved
// state (ExplainState).
type Explanation struct {
	// Seen is the fetches the learner observed, failed ones included;
	// Built the fetches observed when its models were last rebuilt.
	Seen   int                `json:"seen"`
	Built  int                `json:"built"`
	Topics []TopicExplanation `json:"topics"`
}

// TopicExplanation is what a topic's link model learnt: its evidence, by
// class, and the features that tell the classes apart most.
type TopicExplanation struct {
	Topic string `json:"topic"`
	// Reward is the page score at which a fetched page rewards the link
	// that led to it (0 when the state does not say).
	Reward float64 `json:"reward"`
	// Leads, LeadsOn and Nowhere weigh the links of the evidence that
	// led to a relevant page, to a page that led to one, and to neither,
	// a link of the crawl 1 and one of the training pages the learner was
	// primed with the prior's weight (a link may be split between two).
	Leads   float64 `json:"leads"`
	LeadsOn float64 `json:"leads_on"`
	Nowhere float64 `json:"nowhere"`
	// Model tells whether the topic's links are valued by a model of
	// this evidence; false while they are valued by the base model, too
	// little having been learnt yet.
	Model bool `json:"model"`
	// ToTopic are the features that most tell the links that led to the
	// topic from those that led nowhere; ToNext those that most tell the
	// links that led on; ToNowhere those that most tell the links that
	// led nowhere from either. Each is empty while a class it compares
	// has no evidence.
	ToTopic   []FeatureShares `json:"to_topic"`
	ToNext    []FeatureShares `json:"to_next"`
	ToNowhere []FeatureShares `json:"to_nowhere"`
}

// FeatureShares is one feature of a link (a word of its context, or
// anchor:WORD, url:WORD, link:same-host, depth:N, base:N, source:…,
// siblings:…) and the share of each class's links that have it, as the
// model estimates it (m-estimate smoothed).
type FeatureShares struct {
	Feature string  `json:"feature"`
	Leads   float64 `json:"leads"`
	LeadsOn float64 `json:"leads_on"`
	Nowhere float64 `json:"nowhere"`
}

// ExplainState explains a learner's saved state (MarshalState or
// MarshalMemory), with k features of each kind per topic.
func ExplainState(data []byte, k int) (*Explanation, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i] // the memory of links, not needed here
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("learner state: %w", err)
	}
	if s.Format != stateFormat {
		return nil, fmt.Errorf("learner state: format %q, want %q", s.Format, stateFormat)
	}
	if len(s.Counts) != len(s.Topics) || len(s.Models) != len(s.Topics) || s.Rewards != nil && len(s.Rewards) != len(s.Topics) {
		return nil, fmt.Errorf("learner state: %d topics, %d counts, %d models", len(s.Topics), len(s.Counts), len(s.Models))
	}
	e := &Explanation{Seen: s.Seen, Built: s.Built}
	for t, topic := range s.Topics {
		te := TopicExplanation{Topic: topic}
		if s.Rewards != nil {
			te.Reward = s.Rewards[t]
		}
		c := s.Counts[t]
		if c == nil || !slices.Equal(c.Classes(), linkClasses) {
			return nil, fmt.Errorf("learner state: counts of %s missing or not over the classes %v", topic, linkClasses)
		}
		te.Leads, te.LeadsOn, te.Nowhere = c.Docs(classLeads), c.Docs(classNext), c.Docs(classNot)
		if raw := s.Models[t]; string(raw) != "null" {
			m, err := classify.Load(bytes.NewReader(raw))
			if err != nil {
				return nil, fmt.Errorf("learner state: model of %s: %w", topic, err)
			}
			if !slices.Equal(m.Classes(), linkClasses) {
				return nil, fmt.Errorf("learner state: model of %s has classes %v, want %v", topic, m.Classes(), linkClasses)
			}
			te.Model = true
			te.ToTopic, te.ToNext, te.ToNowhere = telling(m, k)
			// A class without evidence has shares of the smoothing's
			// prior alone: nothing told apart.
			if te.Leads < 1 || te.Nowhere < 1 {
				te.ToTopic = nil
			}
			if te.LeadsOn < 1 || te.Nowhere < 1 {
				te.ToNext = nil
			}
			if te.Nowhere < 1 {
				te.ToNowhere = nil
			}
		}
		e.Topics = append(e.Topics, te)
	}
	return e, nil
}

// telling returns the k terms of m that most tell the "leads" links
// from the "not" ones, the k that tell "leads-next" from "not", and the k
// that tell "not" from both others. A term tells class a from class b by
// θa·log(θa/θb): the weight of its presence in the model's log-odds
// (the log of the ratio of its shares) times how often it is there to
// weigh, so that a term of a few links does not outrank one of many.
func telling(m *classify.Model, k int) (leads, next, not []FeatureShares) {
	type ranked struct {
		f          FeatureShares
		l, n, away float64
	}
	var all []ranked
	for i := range m.NumTerms() {
		term := m.Term(i)
		th := m.Theta(term)
		f := FeatureShares{Feature: term, Leads: th[classLeads], LeadsOn: th[classNext], Nowhere: th[classNot]}
		all = append(all, ranked{f: f,
			l:    f.Leads * math.Log(f.Leads/f.Nowhere),
			n:    f.LeadsOn * math.Log(f.LeadsOn/f.Nowhere),
			away: f.Nowhere * math.Log(f.Nowhere/max(f.Leads, f.LeadsOn))})
	}
	top := func(key func(r ranked) float64) []FeatureShares {
		slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(key(b), key(a)) })
		var out []FeatureShares
		for _, r := range all {
			if len(out) == k || key(r) <= 0 {
				break
			}
			out = append(out, r.f)
		}
		return out
	}
	leads = top(func(r ranked) float64 { return r.l })
	next = top(func(r ranked) float64 { return r.n })
	not = top(func(r ranked) float64 { return r.away })
	return leads, next, not
}

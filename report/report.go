package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// Target scopes of a report; see Report.TargetScope.
const (
	ScopeCrawledHosts = "crawled-hosts"
	ScopeAllLabels    = "all-labels"
)

// Report is the measure of one crawl.
type Report struct {
	Crawl    string `json:"crawl"`
	Strategy string `json:"strategy"`
	Pages    int    `json:"pages"`  // fetched successfully: the budget unit
	Failed   int    `json:"failed"` // failed fetches (404, robots, …)
	// Fetches counts every fetch, failed ones included.
	Fetches int `json:"fetches"`
	// Duplicates counts the pages fetched successfully that are
	// near-duplicates of pages stored before them; Pages includes them.
	Duplicates     int     `json:"duplicates"`
	PagesPerSecond float64 `json:"pages_per_second,omitempty"`
	// FetchesPerSecond counts failed fetches too.
	FetchesPerSecond float64 `json:"fetches_per_second,omitempty"`
	// RatesByFetchTimes: both rates are over the time from the first
	// fetch to the last, as a report read from a store measures them
	// (every run of the crawl, pauses between runs included), not over
	// the crawling process's own clock, which also counts its start (the
	// learner's priming, the first pops) and end.
	RatesByFetchTimes bool `json:"rates_by_fetch_times,omitempty"`
	// Seconds is the crawl's time; BetweenRoundsSeconds, in lockstep, the
	// part of it spent between rounds with no fetch in flight (the
	// committer's turns: crawler.Summary.BetweenRounds).
	Seconds              float64 `json:"seconds,omitempty"`
	BetweenRoundsSeconds float64 `json:"seconds_between_rounds,omitempty"`
	// Guessed and Discarded: in a lockstep crawl that guesses its rounds,
	// the fetches guessed and fetched ahead that the pops took, and the
	// guessed fetches they did not take (crawler.Summary).
	Guessed   int  `json:"guessed,omitempty"`
	Discarded int  `json:"discarded,omitempty"`
	Labelled  bool `json:"labelled"`
	// TargetScope says which labelled pages recall is measured against:
	// "crawled-hosts" (labelled pages on the hosts the crawl fetched from)
	// or "all-labels" (every page of the labels file, e.g. the pages
	// reachable from the seeds).
	TargetScope string `json:"target_scope,omitempty"`
	// HeldOut is true when the pages the model learnt from were given
	// (Exclude): they are left out of every topic's Targets and never
	// count as found. LearntFrom counts them.
	HeldOut    bool          `json:"held_out"`
	LearntFrom int           `json:"learnt_from"`
	Every      int           `json:"harvest_every"`
	Topics     []*TopicStats `json:"topics"`
	// Budgets are the budgets (in pages) recall is given at
	// (TopicStats.RecallAt); DefaultBudgets when empty.
	Budgets []int `json:"-"`

	learnt   map[urlnorm.URL]bool // labelled pages the model learnt from
	labels   Labels
	byDir    map[urlnorm.URL]urlnorm.URL // see indexAliases
	finished bool
	hosts    map[string]bool
	seen     map[urlnorm.URL]bool // labelled pages already counted
}

// TopicStats is one topic's part of a report.
type TopicStats struct {
	Topic string `json:"topic"`
	// FromStack is the number of pages fetched from this topic's stack.
	FromStack int `json:"from_stack"`
	// Unique and Duplicates split FromStack into pages that are not
	// near-duplicates of a page stored before them and pages that are.
	Unique     int `json:"unique"`
	Duplicates int `json:"duplicates"`
	// Targets is the number of held-out targets: the labelled pages of
	// the topic in the report's scope (TargetScope) that the model did not
	// learn from (see Report.Exclude). Found counts those fetched, Recall
	// is Found / Targets.
	Targets int     `json:"targets,omitempty"`
	Found   int     `json:"found"`
	Recall  float64 `json:"recall,omitempty"`
	// RecallAt is the recall at each of the report's budgets the crawl
	// reached; PagesTo the pages (and fetches, failed included) after
	// which the crawl had found 25, 50 and 75 % of the targets (nil when
	// it did not).
	RecallAt []BudgetRecall `json:"recall_at,omitempty"`
	PagesTo  []ShareMark    `json:"pages_to,omitempty"`
	// BFS is breadth-first's measure on the same targets, Plan the pages
	// the all-knowing greedy plan needs for the same shares, and SpeedUp
	// the pages breadth-first needs for each share over this crawl's
	// (set by Compare and by the caller; empty when not measured).
	BFS     *Baseline    `json:"bfs,omitempty"`
	Plan    []ShareMark  `json:"plan_pages_to,omitempty"`
	SpeedUp []ShareRatio `json:"speedup_over_bfs,omitempty"`
	// Relevant counts fetched pages labelled with the topic, those the
	// model learnt from included (or judged relevant by the classifier
	// when the report has no labels).
	Relevant int `json:"relevant"`
	// ByClassifier counts fetched pages the classifier found relevant.
	ByClassifier int `json:"relevant_by_classifier"`
	// TargetsAll counts every labelled page of the topic in scope, those
	// the model learnt from included, and RecallAll is Relevant /
	// TargetsAll: the figure of reports before held-out targets, kept as
	// a secondary measure.
	TargetsAll int     `json:"targets_all_labels,omitempty"`
	RecallAll  float64 `json:"recall_all_labels,omitempty"`
	// OwnRelevant counts the Relevant pages that are also in FromStack:
	// fetched from this topic's stack (or as a seed, or by bfs).
	OwnRelevant int `json:"relevant_from_stack"`
	// Precision is OwnRelevant / FromStack: the share of the pages
	// fetched for the topic that are relevant to it. Harvest is Relevant
	// over every page fetched. Both count all labels.
	Precision float64 `json:"precision"`
	Harvest   float64 `json:"harvest_rate"`
	// Estimated is true when relevance comes from the classifier.
	Estimated bool    `json:"estimated"`
	Curve     []Point `json:"harvest_curve"`
	// Threshold is the link score at or above which a link is predicted
	// relevant to the topic (DefaultThreshold when zero).
	Threshold float64 `json:"-"`
	// Links is the link classifier's precision and recall on labelled
	// links (see AddLink), or nil when no scored link was counted.
	Links *LinkStats `json:"link_classifier,omitempty"`

	found []mark // when each held-out target was found, in order
}

// Point is one point of a harvest curve. Recall is held-out (Found over
// the topic's Targets), RecallAll over all labels.
type Point struct {
	Pages     int     `json:"pages"`
	Relevant  int     `json:"relevant"`
	Rate      float64 `json:"harvest_rate"`
	Found     int     `json:"found"`
	Recall    float64 `json:"recall,omitempty"`
	RecallAll float64 `json:"recall_all_labels,omitempty"`
}

// New starts a report for topics. labels may be nil: relevance is then the
// classifier's. every is the spacing of harvest-curve points (default 100).
func New(crawl, strategy string, topics []string, labels Labels, every int) *Report {
	if every <= 0 {
		every = 100
	}
	r := &Report{Crawl: crawl, Strategy: strategy, Labelled: labels != nil, Every: every, labels: labels, TargetScope: ScopeCrawledHosts,
		byDir: indexAliases(labels), hosts: make(map[string]bool), seen: make(map[urlnorm.URL]bool), learnt: make(map[urlnorm.URL]bool)}
	for _, t := range topics {
		r.Topics = append(r.Topics, &TopicStats{Topic: t, Estimated: labels == nil})
	}
	return r
}

// dirForm is u without a final index document: the key under which a
// directory and its index page ("/d/" and "/d/index.html" or
// "/d/index.htm") meet.
func dirForm(u urlnorm.URL) urlnorm.URL {
	return u.Extend(urlnorm.EN4IndexHTM, urlnorm.EN5IndexHTML)
}

// indexAliases maps the directory form of every labelled URL to that URL,
// so that a labelled directory fetched under its index page, or the other
// way round (as servers answer both with one page), is found. A directory
// form shared by two labelled URLs is left out: each is found only under
// its own URL.
func indexAliases(labels Labels) map[urlnorm.URL]urlnorm.URL {
	if labels == nil {
		return nil
	}
	m := make(map[urlnorm.URL]urlnorm.URL, len(labels))
	shared := make(map[urlnorm.URL]bool)
	for u := range labels {
		k := dirForm(u)
		if _, dup := m[k]; dup {
			shared[k] = true
		}
		m[k] = u
	}
	for k := range shared {
		delete(m, k)
	}
	return m
}

// labelOf returns the labelled URL u names, by itself or as an index
// alias, and its label.
func (r *Report) labelOf(u urlnorm.URL) (urlnorm.URL, string, bool) {
	if u.IsZero() {
		return u, "", false
	}
	return lookup(r.labels, r.byDir, u)
}

// lookup returns the labelled URL u names, by itself or as an index alias
// (byDir, see indexAliases), and its label.
func lookup(labels Labels, byDir map[urlnorm.URL]urlnorm.URL, u urlnorm.URL) (urlnorm.URL, string, bool) {
	if l, ok := labels[u]; ok {
		return u, l, true
	}
	if mayAlias(u) {
		if v, ok := byDir[dirForm(u)]; ok {
			return v, labels[v], true
		}
	}
	return u, "", false
}

// mayAlias reports whether u is a directory or an index page, the only
// URLs whose directory form can name another page; it spares the others
// (most links a report looks up) the cost of building that form.
func mayAlias(u urlnorm.URL) bool {
	p := u.Path()
	i := strings.LastIndexByte(p, '/')
	name := p[i+1:]
	return name == "" || strings.EqualFold(name, "index.html") || strings.EqualFold(name, "index.htm")
}

// Add counts the next fetch of the crawl, as a store reads it: its URLs,
// Topic, Failure, DuplicateOf and Relevant. Failed fetches are counted
// apart; the harvest curve runs over the pages fetched successfully.
func (r *Report) Add(p *crawler.Page) {
	if p.Failure != "" {
		r.Failed++
		r.Fetches = r.Pages + r.Failed
		return
	}
	r.Pages++
	r.Fetches = r.Pages + r.Failed
	dup := !p.DuplicateOf.IsZero()
	if dup {
		r.Duplicates++
	}
	for _, u := range [...]urlnorm.URL{p.URL, p.FinalURL} {
		if !u.IsZero() {
			r.hosts[u.Host()] = true
		}
	}
	// A labelled page reached under several URLs (redirects, index
	// aliases) counts once.
	key, label, ok := r.labelOf(p.URL)
	if !ok && p.FinalURL != p.URL {
		key, label, ok = r.labelOf(p.FinalURL)
	}
	if ok {
		if r.seen[key] {
			ok = false
		} else {
			r.seen[key] = true
		}
	}
	for _, t := range r.Topics {
		own := p.Topic == t.Topic || p.Topic == ""
		if own {
			t.FromStack++
			if dup {
				t.Duplicates++
			} else {
				t.Unique++
			}
		}
		if p.Relevant[t.Topic] {
			t.ByClassifier++
		}
		rel := false
		if r.labels != nil {
			rel = ok && label == t.Topic
		} else {
			rel = p.Relevant[t.Topic]
		}
		if rel {
			t.Relevant++
			if own {
				t.OwnRelevant++
			}
			if !r.learnt[key] {
				t.Found++
				t.found = append(t.found, mark{r.Pages, r.Fetches})
			}
		}
		if r.Pages%r.Every == 0 {
			t.Curve = append(t.Curve, Point{Pages: r.Pages, Relevant: t.Relevant, Found: t.Found})
		}
	}
}

// Finish computes the rates; call it after the last Add and AddLink.
// Calling it again does nothing.
func (r *Report) Finish() {
	if r.finished {
		return
	}
	r.finished = true
	targets, all := make(map[string]int), make(map[string]int)
	if r.labels == nil {
		r.TargetScope = ""
	} else {
		for u, l := range r.labels {
			if r.TargetScope == ScopeAllLabels || r.hosts[u.Host()] {
				all[l]++
				if !r.learnt[u] {
					targets[l]++
				}
			}
		}
	}
	for _, t := range r.Topics {
		if n := len(t.Curve); r.Pages > 0 && (n == 0 || t.Curve[n-1].Pages != r.Pages) {
			t.Curve = append(t.Curve, Point{Pages: r.Pages, Relevant: t.Relevant, Found: t.Found})
		}
		if t.Curve == nil {
			t.Curve = []Point{} // [] in JSON, not null
		}
		t.Targets, t.TargetsAll = targets[t.Topic], all[t.Topic]
		if t.FromStack > 0 {
			t.Precision = float64(t.OwnRelevant) / float64(t.FromStack)
		}
		if r.Pages > 0 {
			t.Harvest = float64(t.Relevant) / float64(r.Pages)
		}
		if t.Targets > 0 {
			t.Recall = float64(t.Found) / float64(t.Targets)
		}
		if t.TargetsAll > 0 {
			t.RecallAll = float64(t.Relevant) / float64(t.TargetsAll)
		}
		if t.Links != nil {
			t.Links.finish()
		}
		for i := range t.Curve {
			p := &t.Curve[i]
			p.Rate = float64(p.Relevant) / float64(p.Pages)
			if t.Targets > 0 {
				p.Recall = float64(p.Found) / float64(t.Targets)
			}
			if t.TargetsAll > 0 {
				p.RecallAll = float64(p.Relevant) / float64(t.TargetsAll)
			}
		}
		t.headline(r.Pages, r.budgets())
	}
	// A finished report keeps its numbers only, so that many of them
	// (a grid's) hold no labels or URL sets.
	r.labels, r.byDir, r.hosts, r.seen, r.learnt = nil, nil, nil, nil, nil
}

// Topic returns the stats of one topic, or nil.
func (r *Report) Topic(name string) *TopicStats {
	for _, t := range r.Topics {
		if t.Topic == name {
			return t
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the report as a Markdown document.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Crawl report: %s\n\n", r.Crawl)
	fmt.Fprintf(&b, "Strategy `%s`, %d pages fetched (%d of them near-duplicates of pages stored before) in %d fetches (%d failed)",
		r.Strategy, r.Pages, r.Duplicates, r.Fetches, r.Failed)
	if r.PagesPerSecond > 0 {
		fmt.Fprintf(&b, ", %.1f pages/s (%.1f fetches/s)", r.PagesPerSecond, r.FetchesPerSecond)
		if r.RatesByFetchTimes {
			b.WriteString(" from its first fetch to its last (pauses between runs included)")
		}
	}
	if r.BetweenRoundsSeconds > 0 {
		fmt.Fprintf(&b, "; %.2f s of the crawl's %.2f s between lockstep rounds, none of a round's fetches in flight", r.BetweenRoundsSeconds, r.Seconds)
	}
	if r.Guessed > 0 || r.Discarded > 0 {
		fmt.Fprintf(&b, "; %d fetches guessed ahead and taken, %d guessed and discarded", r.Guessed, r.Discarded)
	}
	b.WriteString(".\n\n")
	if !r.Labelled {
		b.WriteString("**Relevance is estimated by the page classifier: no labels were given.**\n\n")
	}
	writeHeldOut(&b, r)
	if r.Labelled {
		b.WriteString("## All labels\n\nRelevant pages, precision and harvest rate count every labelled page of the topic, those the model learnt from included; recall (all labels) is over all of them; precision is over the pages fetched from the topic's stack (seeds included), harvest rate over every page fetched.\n\n")
	}
	b.WriteString("| topic | from its stack | unique | duplicates | relevant | by classifier | targets (all labels) | precision | recall (all labels) | harvest rate |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range r.Topics {
		recall := "–"
		if t.TargetsAll > 0 {
			recall = fmt.Sprintf("%.3f", t.RecallAll)
		}
		// A share of no page is none: "–", not a precision of 0.
		precision, harvest := "–", "–"
		if t.FromStack > 0 {
			precision = fmt.Sprintf("%.3f", t.Precision)
		}
		if r.Pages > 0 {
			harvest = fmt.Sprintf("%.3f", t.Harvest)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n", t.Topic, t.FromStack, t.Unique, t.Duplicates, t.Relevant, t.ByClassifier, t.TargetsAll, precision, recall, harvest)
	}
	writeLinkTable(&b, r)
	for _, t := range r.Topics {
		if len(t.Curve) == 0 {
			fmt.Fprintf(&b, "\n## Harvest curve: %s\n\nNo point: the crawl fetched no page.\n", t.Topic)
			continue
		}
		fmt.Fprintf(&b, "\n## Harvest curve: %s\n\n| pages | relevant | harvest rate | held-out found | recall | recall (all labels) |\n|---:|---:|---:|---:|---:|---:|\n", t.Topic)
		for _, p := range t.Curve {
			recall, all := "–", "–"
			if t.Targets > 0 {
				recall = fmt.Sprintf("%.3f", p.Recall)
			}
			if t.TargetsAll > 0 {
				all = fmt.Sprintf("%.3f", p.RecallAll)
			}
			fmt.Fprintf(&b, "| %d | %d | %.3f | %d | %s | %s |\n", p.Pages, p.Relevant, p.Rate, p.Found, recall, all)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

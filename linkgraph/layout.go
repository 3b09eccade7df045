package linkgraph

import (
	"slices"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// Layout describes where the pages of one topic sit in the part of a
// labelled collection reachable from some seeds, and what leads to them:
// which pages link to topic pages (hubs), how deep topic pages are, and
// how many can only be reached through pages of one label. It tells what
// any focused crawler from those seeds is up against.
type Layout struct {
	Topic string `json:"topic"`
	// Pages counts the stored pages reachable from the seeds (status
	// 200, as in BFS); TopicPages those labelled Topic.
	Pages      int `json:"pages"`
	TopicPages int `json:"topic_pages"`
	// Depth[d] counts the topic pages d links away from the nearest seed.
	Depth []int `json:"depth"`
	// Labels describes the linking pages, one entry per label, the most
	// pages first.
	Labels []LabelLayout `json:"labels"`
	// Hubs counts the pages that are not topic pages and link to at
	// least one; HubsTop[i] the topic pages linked from the i+1 hubs that
	// link to the most (up to 10 hubs).
	Hubs    int   `json:"hubs"`
	HubsTop []int `json:"topic_pages_of_biggest_hubs"`
	// Cover lists, for shares of the topic pages, how many hubs link to
	// that share together, chosen greedily (each adds the most topic pages
	// not linked yet: greedy set cover, at most a logarithmic factor above
	// the fewest hubs that do it): about the fetches of off-topic pages a
	// crawler that knew the hubs in advance would need besides the topic
	// pages themselves and the paths to the hubs. Hubs is 0 when all the
	// hubs together link to fewer.
	Cover []CoverPoint `json:"cover"`
	// Plan lists, for the same shares, the fetches (seeds included) of a
	// crawler that knew every page's label and links in advance: a
	// greedy plan that repeatedly fetches the path, from the pages
	// fetched so far, to the page whose path and topic links add the most
	// topic pages per fetch. No crawler that learns as it goes does as
	// well; one that needs far more fetches than this is limited by what
	// it knows, not by the budget. Fetches is 0 for a share not reached.
	Plan []PlanPoint `json:"plan"`
}

// PlanPoint is one point of Layout.Plan.
type PlanPoint struct {
	Share   float64 `json:"share"`
	Fetches int     `json:"fetches"`
}

// CoverPoint is one point of Layout.Cover.
type CoverPoint struct {
	Share float64 `json:"share"`
	Hubs  int     `json:"hubs"`
}

// coverShares are the shares of topic pages Layout.Cover is given for.
var coverShares = []float64{0.5, 0.75, 0.9}

// LabelLayout is the part of a Layout about the reachable pages of one
// label.
type LabelLayout struct {
	Label string `json:"label"`
	Pages int    `json:"pages"`
	// Hubs counts the pages of the label that link to a topic page (a
	// topic page's link to itself does not count); TopicLinked the topic
	// pages they link to.
	Hubs        int `json:"hubs"`
	TopicLinked int `json:"topic_pages_linked"`
	// Only counts the topic pages linked from pages of this label and
	// from no page of another label.
	Only int `json:"topic_pages_linked_only_from_label"`
}

// unlabelled names the label of reachable pages that carry none.
const unlabelled = "(unlabelled)"

// TopicLayout computes the Layout of topic from seeds, over the pages BFS
// reaches (see reach).
func TopicLayout(a *replay.Archive, seeds []urlnorm.URL, topic string) *Layout {
	topic = classify.NameOf(topic) // given by its label ("Course") or its name
	g := reach(a, seeds)
	order, out, depth, labelOf := g.order, g.out, g.depth, g.label

	l := &Layout{Topic: topic, Pages: len(order)}
	byLabel := make(map[string]*LabelLayout)
	linkedBy := make(map[*replay.Page]map[string]bool) // topic page → labels of pages linking to it
	var hubs [][]*replay.Page                          // topic pages linked, per hub
	for _, p := range order {
		pl := labelOf(p)
		ll := byLabel[pl]
		if ll == nil {
			ll = &LabelLayout{Label: pl}
			byLabel[pl] = ll
		}
		ll.Pages++
		if pl == topic {
			l.TopicPages++
			d := depth[p]
			for len(l.Depth) <= d {
				l.Depth = append(l.Depth, 0)
			}
			l.Depth[d]++
		}
		var linked []*replay.Page
		for _, q := range out[p] {
			if q == p || q.Status != 200 || labelOf(q) != topic {
				continue
			}
			linked = append(linked, q)
			if linkedBy[q] == nil {
				linkedBy[q] = make(map[string]bool)
			}
			linkedBy[q][pl] = true
		}
		if len(linked) > 0 {
			ll.Hubs++
			if pl != topic {
				l.Hubs++
				hubs = append(hubs, linked)
			}
		}
	}
	for _, labels := range linkedBy {
		for pl := range labels {
			byLabel[pl].TopicLinked++
			if len(labels) == 1 {
				byLabel[pl].Only++
			}
		}
	}
	for _, ll := range byLabel {
		l.Labels = append(l.Labels, *ll)
	}
	slices.SortFunc(l.Labels, func(x, y LabelLayout) int {
		if x.Pages != y.Pages {
			return y.Pages - x.Pages
		}
		if x.Label < y.Label {
			return -1
		}
		return 1
	})
	slices.SortStableFunc(hubs, func(x, y []*replay.Page) int { return len(y) - len(x) })
	l.Cover = greedyCover(hubs, l.TopicPages)
	var start []*replay.Page
	for _, s := range seeds {
		if p, ok := a.Follow(s); ok && p.Status == 200 && !slices.Contains(start, p) {
			start = append(start, p)
		}
	}
	l.Plan = greedyPlan(start, out, func(p *replay.Page) bool { return labelOf(p) == topic }, l.TopicPages, coverShares)
	union := make(map[*replay.Page]bool)
	for _, h := range hubs[:min(10, len(hubs))] {
		for _, q := range h {
			union[q] = true
		}
		l.HubsTop = append(l.HubsTop, len(union))
	}
	return l
}

// greedyCover returns, for each of coverShares, how many of hubs (each
// the topic pages it links to) greedy set cover takes to link that share
// of total topic pages.
func greedyCover(hubs [][]*replay.Page, total int) []CoverPoint {
	out := make([]CoverPoint, len(coverShares))
	for i, s := range coverShares {
		out[i].Share = s
	}
	covered := make(map[*replay.Page]bool)
	used := make([]bool, len(hubs))
	next := 0 // first share not reached yet
	for n := 1; next < len(out) && total > 0; n++ {
		best, gain := -1, 0
		for i, h := range hubs {
			if used[i] {
				continue
			}
			g := 0
			for _, q := range h {
				if !covered[q] {
					g++
				}
			}
			if g > gain {
				best, gain = i, g
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		for _, q := range hubs[best] {
			covered[q] = true
		}
		for next < len(out) && float64(len(covered)) >= out[next].Share*float64(total) {
			out[next].Hubs = n
			next++
		}
	}
	return out
}

// TargetPlan is the greedy plan of Layout.Plan for a set of target
// pages instead of a label: for each of shares, the fetches (seeds
// included; every fetched page answers 200, so fetches are pages) a
// crawler that knew every page's label and links needs from seeds to
// fetch that share of targets. Pages that are not targets may be fetched
// on the way (they cost fetches) but never count. The shares are of all
// the distinct targets given, stored or not, reachable or not: a share
// that cannot be reached has Fetches 0.
func TargetPlan(a *replay.Archive, seeds, targets []urlnorm.URL, shares []float64) []PlanPoint {
	want := make(map[*replay.Page]bool)
	total := 0
	seen := make(map[urlnorm.URL]bool)
	for _, u := range targets {
		if seen[u] {
			continue
		}
		seen[u] = true
		total++
		if p, ok := a.Lookup(u); ok {
			want[p] = true
		}
	}
	g := reach(a, seeds)
	var start []*replay.Page
	for _, s := range seeds {
		if p, ok := a.Follow(s); ok && p.Status == 200 && !slices.Contains(start, p) {
			start = append(start, p)
		}
	}
	return greedyPlan(start, g.out, func(p *replay.Page) bool { return want[p] }, total, shares)
}

// greedyPlan returns, for each of shares, the fetches a crawler that
// knows every page needs to reach that share of total topic pages from
// seeds over the links out (see Layout.Plan). Only pages answering 200
// are fetched and followed.
func greedyPlan(seeds []*replay.Page, out map[*replay.Page][]*replay.Page, isTopic func(*replay.Page) bool, total int, shares []float64) []PlanPoint {
	plan := make([]PlanPoint, len(shares))
	for i, s := range shares {
		plan[i].Share = s
	}
	fetched := make(map[*replay.Page]bool)
	got, next := 0, 0
	fetch := func(p *replay.Page) {
		if fetched[p] {
			return
		}
		fetched[p] = true
		if isTopic(p) {
			got++
		}
		for next < len(plan) && total > 0 && float64(got) >= plan[next].Share*float64(total) {
			plan[next].Fetches = len(fetched)
			next++
		}
	}
	for _, s := range seeds {
		fetch(s)
	}
	for next < len(plan) {
		// Breadth-first from the fetched pages through pages not fetched.
		steps := make(map[*replay.Page]planStep)
		var queue []*replay.Page
		for p := range fetched {
			for _, q := range out[p] {
				if _, ok := steps[q]; !ok && !fetched[q] && q.Status == 200 {
					steps[q] = planStep{nil, 1, b2i(isTopic(q))}
					queue = append(queue, q)
				}
			}
		}
		// Map iteration order must not decide between equal paths.
		slices.SortFunc(queue, func(x, y *replay.Page) int { return strings.Compare(x.URL.String(), y.URL.String()) })
		for i := 0; i < len(queue); i++ {
			p := queue[i]
			for _, q := range out[p] {
				if _, ok := steps[q]; !ok && !fetched[q] && q.Status == 200 {
					steps[q] = planStep{p, steps[p].cost + 1, steps[p].topic + b2i(isTopic(q))}
					queue = append(queue, q)
				}
			}
		}
		// The page whose path and topic links give the most per fetch.
		var best *replay.Page
		var bestGain, bestCost int
		for _, p := range queue {
			st := steps[p]
			gain, cost := st.topic, st.cost
			for _, q := range out[p] {
				if isTopic(q) && q.Status == 200 && !fetched[q] && !onPathTo(q, p, steps) {
					gain++
					cost++
				}
			}
			if gain > 0 && (best == nil || gain*bestCost > bestGain*cost) {
				best, bestGain, bestCost = p, gain, cost
			}
		}
		if best == nil {
			break
		}
		var path []*replay.Page
		for q := best; q != nil; q = steps[q].parent {
			path = append(path, q)
		}
		for i := len(path) - 1; i >= 0; i-- {
			fetch(path[i])
		}
		for _, q := range out[best] {
			if isTopic(q) && q.Status == 200 {
				fetch(q)
			}
		}
	}
	return plan
}

// planStep is how greedyPlan reaches a page not fetched yet.
type planStep struct {
	parent *replay.Page // nil: linked from a fetched page
	cost   int          // pages on the path, the page included
	topic  int          // topic pages among them
}

// onPathTo reports whether q is on the path greedyPlan takes to p.
func onPathTo(q, p *replay.Page, steps map[*replay.Page]planStep) bool {
	for ; p != nil; p = steps[p].parent {
		if p == q {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

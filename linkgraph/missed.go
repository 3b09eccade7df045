package linkgraph

import (
	"slices"
	"strings"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// Missed describes the topic pages reachable from some seeds that one
// crawl from them did not fetch, and what stood before them: whether the
// crawl had seen a link to them, and if not, which pages it would have had
// to fetch to see one. It tells a crawl's misses of knowledge (the link
// was in its frontier, scored too low or left for later) from its misses
// of reach (no fetched page links to the page).
type Missed struct {
	Topic string `json:"topic"`
	// Fetched counts the crawl's pages reached from the seeds in the
	// collection; Found the topic pages among them.
	Fetched int `json:"fetched"`
	Found   int `json:"found"`
	// Missed counts the reachable topic pages the crawl did not fetch;
	// Linked those of them a fetched page links to. The others are
	// hidden: only pages the crawl did not fetch link to them.
	Missed int `json:"missed"`
	Linked int `json:"linked"`
	// Depth[d] counts the missed topic pages d links from the nearest
	// seed.
	Depth []int `json:"depth"`
	// Groups splits the reachable topic pages by the collection's group
	// (for WebKB, the university, or misc: the other sites, where the
	// training examples come from), in group order.
	Groups []GroupFound `json:"groups"`
	// Behind lists the pages the crawl did not fetch that link to hidden
	// topic pages, up to 10, those linking to the most first.
	Behind []Behind `json:"behind"`
	// BehindTop[i] counts the hidden topic pages linked from the first
	// i+1 pages of Behind together.
	BehindTop []int `json:"hidden_behind_top"`
}

// GroupFound counts the reachable topic pages of one group and those of
// them a crawl fetched.
type GroupFound struct {
	Group string `json:"group"`
	Pages int    `json:"pages"`
	Found int    `json:"found"`
}

// Behind is a page a crawl did not fetch that links to topic pages no
// fetched page links to.
type Behind struct {
	URL   string `json:"url"`
	Label string `json:"label"`
	// Depth counts links from the nearest seed; Parents the fetched pages
	// that link to this one (0: it was hidden too).
	Depth   int `json:"depth"`
	Parents int `json:"fetched_parents"`
	// Hidden counts the hidden topic pages it links to.
	Hidden int `json:"hidden"`
}

// MissedBy computes what a crawl from seeds that fetched the pages at
// fetched (final URLs, resolved as a.Follow does; URLs outside the
// collection or out of reach of the seeds are ignored) missed of topic.
func MissedBy(a *replay.Archive, seeds []urlnorm.URL, topic string, fetched []urlnorm.URL) *Missed {
	g := reach(a, seeds)
	reached := make(map[*replay.Page]bool, len(g.order))
	for _, p := range g.order {
		reached[p] = true
	}
	got := make(map[*replay.Page]bool)
	for _, u := range fetched {
		if p, ok := a.Follow(u); ok && reached[p] {
			got[p] = true
		}
	}
	topic = classify.NameOf(topic) // given by its label ("Course") or its name
	m := &Missed{Topic: topic, Fetched: len(got)}
	isTopic := func(p *replay.Page) bool { return g.label(p) == topic }
	// The fetched pages' links, and the unfetched pages' links to topic
	// pages, by target.
	seen := make(map[*replay.Page]bool)
	parents := make(map[*replay.Page]int)         // unfetched page → fetched pages linking to it
	into := make(map[*replay.Page][]*replay.Page) // topic page → unfetched pages linking to it
	for _, p := range g.order {
		for _, q := range g.out[p] {
			switch {
			case q == p:
			case got[p]:
				seen[q] = true
				parents[q]++
			case isTopic(q):
				into[q] = append(into[q], p)
			}
		}
	}
	behind := make(map[*replay.Page]int)
	groups := make(map[string]*GroupFound)
	for _, p := range g.order {
		if !isTopic(p) {
			continue
		}
		gf := groups[g.group(p)]
		if gf == nil {
			gf = &GroupFound{Group: g.group(p)}
			groups[gf.Group] = gf
		}
		gf.Pages++
		if got[p] {
			m.Found++
			gf.Found++
			continue
		}
		m.Missed++
		d := g.depth[p]
		for len(m.Depth) <= d {
			m.Depth = append(m.Depth, 0)
		}
		m.Depth[d]++
		if seen[p] {
			m.Linked++
			continue
		}
		for _, h := range into[p] {
			behind[h]++
		}
	}
	for _, gf := range groups {
		m.Groups = append(m.Groups, *gf)
	}
	slices.SortFunc(m.Groups, func(x, y GroupFound) int { return strings.Compare(x.Group, y.Group) })
	hubs := make([]*replay.Page, 0, len(behind))
	for h := range behind {
		hubs = append(hubs, h)
	}
	// Most hidden pages first; then nearest the seeds, then BFS order.
	rank := make(map[*replay.Page]int, len(g.order))
	for i, p := range g.order {
		rank[p] = i
	}
	slices.SortFunc(hubs, func(x, y *replay.Page) int {
		if behind[x] != behind[y] {
			return behind[y] - behind[x]
		}
		if g.depth[x] != g.depth[y] {
			return g.depth[x] - g.depth[y]
		}
		return rank[x] - rank[y]
	})
	union := make(map[*replay.Page]bool)
	for _, h := range hubs[:min(10, len(hubs))] {
		m.Behind = append(m.Behind, Behind{URL: h.URL.String(), Label: g.label(h), Depth: g.depth[h], Parents: parents[h], Hidden: behind[h]})
		for _, q := range g.out[h] {
			if isTopic(q) && !got[q] && !seen[q] {
				union[q] = true
			}
		}
		m.BehindTop = append(m.BehindTop, len(union))
	}
	return m
}

package linkgraph

import (
	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/urlnorm"
)

// BFS returns the pages of a that a breadth-first crawl starting at seeds
// fetches with status 200 through the replay handler, in fetch order:
// links are followed as links gives them ((*replay.Page).Links when nil),
// URLs are answered as the handler answers them (a.Answer: directory
// aliases and redirects included, redirect responses themselves not
// counted), and each stored page is counted and expanded once.
func BFS(a *replay.Archive, seeds []urlnorm.URL, links func(*replay.Page) []urlnorm.URL) []*replay.Page {
	var order []*replay.Page
	walk(a, seeds, links, func(p *replay.Page, status int, _ []urlnorm.URL) {
		if status == 200 {
			order = append(order, p)
		}
	})
	return order
}

// walk is the breadth-first traversal of BFS: it calls visit once per
// stored page reached (redirect responses included), with the status the
// handler answers it with and the links it follows from it.
func walk(a *replay.Archive, seeds []urlnorm.URL, links func(*replay.Page) []urlnorm.URL, visit func(p *replay.Page, status int, links []urlnorm.URL)) {
	if links == nil {
		links = (*replay.Page).Links
	}
	var (
		queued  = make(map[urlnorm.URL]bool)
		fetched = make(map[*replay.Page]bool)
		queue   []urlnorm.URL
	)
	push := func(u urlnorm.URL) {
		if !queued[u] {
			queued[u] = true
			queue = append(queue, u)
		}
	}
	for _, s := range seeds {
		push(s)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		p, redirect, ok := a.Answer(u)
		if !ok {
			continue
		}
		if p == nil { // the handler's own directory redirect
			if !redirect.IsZero() {
				push(redirect)
			}
			continue
		}
		if fetched[p] {
			continue
		}
		fetched[p] = true
		ls := links(p)
		visit(p, p.Status, ls)
		for _, l := range ls {
			push(l)
		}
	}
}

// Reachable returns the URLs of the stored pages that a crawl from seeds
// can fetch with status 200 by following the links an HTML parser sees
// ((*replay.Page).Links) inside the collection; see BFS. These are the
// targets a crawl from the same seeds can find at all.
func Reachable(a *replay.Archive, seeds []urlnorm.URL) map[urlnorm.URL]bool {
	set := make(map[urlnorm.URL]bool)
	for _, p := range BFS(a, seeds, nil) {
		set[p.URL] = true
	}
	return set
}

// graph is the part of a collection reachable from some seeds.
type graph struct {
	order []*replay.Page                  // the pages reached with status 200, as BFS orders them
	out   map[*replay.Page][]*replay.Page // each reached page's distinct link targets
	depth map[*replay.Page]int            // links from the nearest seed
	label func(*replay.Page) string
	group func(*replay.Page) string // "" for a page without a label
}

// reach returns the graph of the pages BFS reaches from seeds; a page's
// links are resolved as the handler answers them (its own redirects
// included, as a.Follow does), a page's label is the name a seed file
// gives it (classify.NameOf), and a page without a label is unlabelled.
func reach(a *replay.Archive, seeds []urlnorm.URL) *graph {
	label := make(map[*replay.Page]string, len(a.Labels()))
	group := make(map[*replay.Page]string, len(a.Labels()))
	for _, l := range a.Labels() {
		if p, ok := a.Lookup(l.URL); ok {
			label[p] = classify.NameOf(l.Label) // as a seed file names it
			group[p] = l.Group
		}
	}
	g := &graph{
		group: func(p *replay.Page) string { return group[p] },
		out:   make(map[*replay.Page][]*replay.Page),
		depth: make(map[*replay.Page]int),
		label: func(p *replay.Page) string {
			if l, ok := label[p]; ok {
				return l
			}
			return unlabelled
		},
	}
	walk(a, seeds, nil, func(p *replay.Page, status int, links []urlnorm.URL) {
		if status == 200 {
			g.order = append(g.order, p)
		}
		seen := make(map[*replay.Page]bool)
		for _, u := range links {
			if q, ok := a.Follow(u); ok && !seen[q] {
				seen[q] = true
				g.out[p] = append(g.out[p], q)
			}
		}
	})
	// Depth: breadth-first over out.
	var queue []*replay.Page
	for _, s := range seeds {
		if p, ok := a.Follow(s); ok {
			if _, seen := g.depth[p]; !seen {
				g.depth[p] = 0
				queue = append(queue, p)
			}
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range g.out[p] {
			if _, seen := g.depth[q]; !seen {
				g.depth[q] = g.depth[p] + 1
				queue = append(queue, q)
			}
		}
	}
	return g
}

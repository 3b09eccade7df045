package replay

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/scent-crawler/scent/urlnorm"
)

// linkAttrs maps the tags whose links a crawler follows to the attribute
// holding the link.
var linkAttrs = map[string]string{
	"a":      "href",
	"area":   "href",
	"frame":  "src",
	"iframe": "src",
}

// Links returns the http(s) URLs the page links to through <a href>,
// <area href>, <frame src> and <iframe src>, resolved against the page's
// <base href> if any or else its URL, normalized, without duplicates, in
// document order. Pages that are not HTML have no links; a stored redirect
// links to its Location.
func (p *Page) Links() []urlnorm.URL {
	var out []urlnorm.URL
	seen := make(map[urlnorm.URL]bool)
	add := func(base urlnorm.URL, ref string) {
		u, err := base.Resolve(ref)
		if err != nil || seen[u] {
			return
		}
		seen[u] = true
		out = append(out, u)
	}
	if p.Status != 200 {
		if loc := p.Header.Get("Location"); loc != "" {
			add(p.URL, loc)
		}
		return out
	}
	if !p.IsHTML() {
		return nil
	}
	base, baseSet := p.URL, false
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		tag := string(name)
		want, ok := linkAttrs[tag]
		if tag == "base" {
			want, ok = "href", !baseSet
		}
		if !ok {
			continue
		}
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) != want {
				continue
			}
			ref := strings.TrimSpace(string(v))
			if tag == "base" {
				if b, err := p.URL.Resolve(ref); err == nil {
					base, baseSet = b, true
				}
			} else if ref != "" {
				add(base, ref)
			}
			break
		}
	}
}

// rawLinkRe matches the link attribute of a, area, frame, iframe and base
// tags anywhere in a document, comments and <noframes> included.
var rawLinkRe = regexp.MustCompile(`(?is)<(a|area|frame|iframe|base)\b[^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)

// RawLinks is Links as a pattern-matching link extractor sees it, like the
// crawler that gathered the collection: every href or src attribute of an
// a, area, frame or iframe tag counts, also inside comments, <noframes> and
// other text an HTML parser does not read as tags. The first <base href>
// found is honoured.
func (p *Page) RawLinks() []urlnorm.URL {
	var out []urlnorm.URL
	seen := make(map[urlnorm.URL]bool)
	if p.Status != 200 {
		return p.Links()
	}
	if !p.IsHTML() {
		return nil
	}
	ms := rawLinkRe.FindAllSubmatch(p.Body, -1)
	base := p.URL
	for _, m := range ms {
		if strings.EqualFold(string(m[1]), "base") {
			if b, err := p.URL.Resolve(string(m[2]) + string(m[3]) + string(m[4])); err == nil {
				base = b
			}
			break
		}
	}
	for _, m := range ms {
		if strings.EqualFold(string(m[1]), "base") {
			continue
		}
		ref := strings.TrimSpace(string(m[2]) + string(m[3]) + string(m[4]))
		if ref == "" {
			continue
		}
		u, err := base.Resolve(ref)
		if err != nil || seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
	}
	return out
}

// BFS returns the pages a breadth-first crawl starting at seeds fetches with
// status 200 through the handler, in fetch order: links are followed as
// links gives them ((*Page).Links when nil), URLs are answered as the
// handler answers them (directory aliases and redirects included, redirect
// responses themselves not counted), and each stored page is counted and
// expanded once.
func (a *Archive) BFS(seeds []urlnorm.URL, links func(*Page) []urlnorm.URL) []*Page {
	var order []*Page
	a.walk(seeds, links, func(p *Page, status int, _ []urlnorm.URL) {
		if status == 200 {
			order = append(order, p)
		}
	})
	return order
}

// walk is the breadth-first traversal of BFS: it calls visit once per
// stored page reached (redirect responses included), with the status the
// handler answers it with and the links it follows from it.
func (a *Archive) walk(seeds []urlnorm.URL, links func(*Page) []urlnorm.URL, visit func(p *Page, status int, links []urlnorm.URL)) {
	if links == nil {
		links = (*Page).Links
	}
	var (
		queued  = make(map[urlnorm.URL]bool)
		fetched = make(map[*Page]bool)
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
		rt, ok := a.routes[u.String()]
		if !ok {
			continue
		}
		if rt.page == nil { // directory redirect
			if t, err := urlnorm.Parse(rt.header.Get("Location")); err == nil {
				push(t)
			}
			continue
		}
		if fetched[rt.page] {
			continue
		}
		fetched[rt.page] = true
		ls := links(rt.page)
		visit(rt.page, rt.status, ls)
		for _, l := range ls {
			push(l)
		}
	}
}

// Reachable returns the URLs of the stored pages that a crawl from seeds
// can fetch with status 200 by following the links an HTML parser sees
// ((*Page).Links) inside the collection; see BFS. These are the targets a
// crawl from the same seeds can find at all.
func (a *Archive) Reachable(seeds []urlnorm.URL) map[urlnorm.URL]bool {
	set := make(map[urlnorm.URL]bool)
	for _, p := range a.BFS(seeds, nil) {
		set[p.URL] = true
	}
	return set
}

// DepartmentGroups are the groups whose whole department sites are in the
// collection, in the order DepartmentSeeds returns their home pages.
var DepartmentGroups = []string{"cornell", "texas", "washington", "wisconsin"}

// ErrNoSeed means a department home page is missing from the archive.
var ErrNoSeed = errors.New("department home page not found")

// DepartmentSeeds returns the department home pages of cornell, texas,
// washington and wisconsin, in that order: for each group, the page
// labelled department with the shortest URL (the lexically smaller on a
// tie). It fails with ErrNoSeed when a group has none.
func DepartmentSeeds(a *Archive) ([]urlnorm.URL, error) {
	seeds := make([]urlnorm.URL, 0, len(DepartmentGroups))
	for _, g := range DepartmentGroups {
		var best urlnorm.URL
		for _, l := range a.labels {
			if l.Label != "department" || l.Group != g {
				continue
			}
			s, b := l.URL.String(), best.String()
			if best.IsZero() || len(s) < len(b) || len(s) == len(b) && s < b {
				best = l.URL
			}
		}
		if best.IsZero() {
			return nil, fmt.Errorf("department seeds: %s: %w", g, ErrNoSeed)
		}
		seeds = append(seeds, best)
	}
	return seeds, nil
}

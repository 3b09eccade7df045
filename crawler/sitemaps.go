package crawler

import (
	"context"
	"sync"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// SitemapFetcher is an optional interface of a Fetcher that reads the
// sitemaps of a site (robots.txt Sitemap: lines, /sitemap.xml);
// *fetch.Fetcher implements it. With Config.Sitemaps the crawler reads
// them once per site, at the first fetch from it that does not fail;
// allow is Config.Scope, which bounds the sitemaps read on other sites.
type SitemapFetcher interface {
	Sitemaps(ctx context.Context, origin string, allow func(urlnorm.URL) error) ([]fetch.Sitemap, error)
}

// maxSitemapSites bounds the sites whose sitemaps a run remembers having
// read; past it, it forgets them and may read a site's sitemaps again.
const maxSitemapSites = 1 << 16

// sitemapSites remembers the sites whose sitemaps this run has read.
type sitemapSites struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether origin is seen for the first time, and marks it.
func (s *sitemapSites) first(origin string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil || len(s.seen) >= maxSitemapSites {
		s.seen = make(map[string]bool)
	}
	if s.seen[origin] {
		return false
	}
	s.seen[origin] = true
	return true
}

// sitemapEntries reads the sitemaps of the site of p when it is the first
// page of that site this run fetches without failure (a site that
// answered only errors so far, a dead host or a 404 for every link to
// it, is not asked), records them on p and returns the entries to push
// for the URLs they list.
//
// A sitemap URL has no link context: no anchor, no words around it. Its
// segment is the words of its URL path alone, which the classifier
// scores as it scores a link: the prior of each topic corrected by the
// absent features and by the path's words. The URL goes on the stack of
// each topic whose score reaches the threshold, on the topic's reserve
// otherwise (with Config.Tunnel), at the depth of a link of p and with
// the sitemap as its parent. A bfs crawl queues every URL. The entries
// are pushed before p's own links, so on a stack p's on-topic links are
// taken first.
func (w *worker) sitemapEntries(ctx context.Context, e Entry, p *Page) []Entry {
	c := w.c
	src, ok := c.fetcher.(SitemapFetcher)
	if !c.cfg.Sitemaps || !ok || !c.sitemapSites.first(e.URL.Origin()) {
		return nil
	}
	sms, err := src.Sitemaps(ctx, e.URL.Origin(), c.cfg.Scope)
	if err != nil {
		return nil // the crawl is ending
	}
	p.Sitemaps = sms
	depth := e.Depth + 1
	if c.cfg.MaxDepth > 0 && depth > c.cfg.MaxDepth {
		return nil
	}
	var out []Entry
	seen := make(map[urlnorm.URL]bool)
	linkScorer, _ := c.scorer.(LinkScorer)
	for _, sm := range sms {
		if sm.Index || sm.Failure != "" {
			continue
		}
		parent, _ := urlnorm.Parse(sm.URL)
		for _, se := range sm.Entries {
			u, err := urlnorm.Parse(se.Loc)
			if err != nil || seen[u] || u == e.URL || len(u.String()) > c.cfg.MaxURLLength || !c.allowed(u) {
				continue
			}
			seen[u] = true
			if c.cfg.Strategy == StrategyBFS || c.scorer == nil {
				out = append(out, Entry{Topic: "", URL: u, Depth: depth, Parent: parent})
				continue
			}
			w.tokens = append(w.tokens[:0], segment.URLTokens(u)...)
			var scores []float64
			if linkScorer != nil {
				scores = linkScorer.ScoreLink(u, w.tokens, nil)
			} else {
				scores = c.scorer.Score(w.tokens, nil)
			}
			for i, v := range scores {
				switch {
				case v >= c.scorer.Threshold(i):
					out = append(out, Entry{Topic: c.topics[i], URL: u, Depth: depth, Score: v, Parent: parent})
				case c.cfg.Tunnel:
					out = append(out, Entry{Topic: Stack{Topic: c.topics[i], Kind: Reserve}.Name(), URL: u, Depth: depth, Score: v, Parent: parent})
				}
			}
		}
	}
	// Pushes are made in reverse, as process makes those of the links:
	// on a stack the last pushed is taken first, and process turns a bfs
	// page's pushes around at its end.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

package crawler

import "github.com/scent-crawler/scent/urlnorm"

// redirected records that the fetch of e was answered by a redirect to
// target and returns the entry that fetches the target, if any.
//
// The crawler does not follow redirects inside a fetch: a redirect is one
// fetch (it counts in Config.MaxFetches but not in MaxPages) whose URL
// becomes an alias of its target, and the target goes through the
// frontier like a link. So the visited set decides whether it is fetched
// (a target already fetched, leased or waiting is not fetched again, and
// two URLs redirecting to one page store that page once, under its own
// URL), robots.txt and the host's politeness apply to it as to any URL,
// and a target out of the crawl's scope (an extension not followed, a URL
// over MaxURLLength, a page already in hand) is not fetched at all. The
// entry keeps e's topic, depth, score and parent: a redirect is not a
// link hop.
func (c *Crawler) redirected(e Entry, p *Page, target urlnorm.URL) []Entry {
	p.RedirectTo = target
	p.Failure = "redirect: to " + target.String()
	if target == e.URL || !c.inScope(target) {
		return nil
	}
	return []Entry{{Topic: e.Topic, URL: target, Depth: e.Depth, Score: e.Score, Parent: e.Parent}}
}

// inScope reports whether u may be fetched by this crawl when a page or
// a redirect leads to it.
func (c *Crawler) inScope(u urlnorm.URL) bool {
	return len(u.String()) <= c.cfg.MaxURLLength && !c.skipped(u) && !c.known[u]
}

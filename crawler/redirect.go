package crawler

import (
	"context"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// maxRedirects bounds the redirect hops one fetch follows.
const maxRedirects = 10

// Redirects. The crawler does not let the fetcher follow redirects
// (fetch.WithoutRedirects): every hop is a request of its own, checked
// like a link. A hop to a URL the crawl already took (fetched, or leased
// to another fetch), out of its scope (an extension not
// followed, a URL over MaxURLLength or out of Config.Scope, a page
// already in hand), a loop or
// the hop past maxRedirects is not followed: the record is no page, its
// URL an alias of the target (Page.RedirectTo), and a target in scope
// goes through the frontier like a link, where the visited set decides
// whether it is fetched. The bfs queue never follows a hop inline: its
// target is queued, so that what a bfs crawl fetches does not depend on
// when other fetches commit. A focused crawl follows a hop to a URL not
// taken at once (the target is the page the link meant, and the store
// marks it fetched);
// robots.txt and the host's politeness apply to every hop. Two fetches of
// one round may still reach one new URL: the store keeps the first page
// committed and makes the other an alias (sqlite.Store.Commit). Every hop
// is recorded in Page.Redirects.

// fetchFollowing fetches e.URL, following redirects as described above.
func (w *worker) fetchFollowing(ctx context.Context, e Entry, p *Page) (*fetch.Result, error) {
	c := w.c
	ctx = fetch.WithoutRedirects(ctx)
	cur := e.URL
	var exchanges []*fetch.Exchange
	for hops := 0; ; hops++ { // hops: redirects followed so far
		res, err := w.fetch(ctx, cur)
		if res != nil {
			exchanges = append(exchanges, res.Exchanges...)
			res.Exchanges = exchanges
		}
		if err != nil || res == nil || res.Location.IsZero() {
			return res, err
		}
		target := res.Location
		p.Redirects = append(p.Redirects, Redirect{URL: cur, Target: target, Status: res.Status})
		if w.gate != nil {
			// A guessed fetch asks the store once its round's pop is in:
			// the store is then what it is for every fetch of the round.
			select {
			case <-w.gate:
			case <-ctx.Done():
			}
		}
		if c.order == FIFO || c.queueRedirects || hops >= maxRedirects || !c.inScope(target) || c.seenInFetch(p, target) || c.takenURL(ctx, target) {
			return res, nil
		}
		cur = target
	}
}

// fetch asks for u: from the answers kept of the crawl's latest fetches
// (keptFetches), when it guesses its rounds and one is kept or on its
// way, else from the server.
func (w *worker) fetch(ctx context.Context, u urlnorm.URL) (*fetch.Result, error) {
	kept := w.c.kept
	if kept == nil {
		return w.c.fetcher.Fetch(ctx, u, nil)
	}
	if a, ok := kept.ask(ctx, u); ok {
		return a.res, a.err
	}
	res, err := w.c.fetcher.Fetch(ctx, u, nil)
	kept.answered(ctx, u, answer{res, err})
	return res, err
}

// seenInFetch reports whether u is a URL of p's redirect chain before its
// last hop (a loop).
func (c *Crawler) seenInFetch(p *Page, u urlnorm.URL) bool {
	if u == p.URL {
		return true
	}
	for _, r := range p.Redirects[:len(p.Redirects)-1] {
		if r.Target == u {
			return true
		}
	}
	return false
}

// takenURL asks the store whether u is fetched or leased to a fetch; a
// store that cannot tell, or an error, counts as taken (the target then
// goes through the frontier, which decides). A URL waiting on a stack is
// not taken: the fetch that reached it fetches it now, and the store
// marks it fetched.
func (c *Crawler) takenURL(ctx context.Context, u urlnorm.URL) bool {
	l := c.urlLookup()
	if l == nil {
		return true
	}
	_, taken, err := l.KnownURL(ctx, c.crawlID, u)
	return err != nil || taken
}

// redirected records that the fetch of e ended with a redirect to target
// that was not followed and returns the entry that fetches the target, if
// any. The entry keeps e's topic, depth, score and parent: a redirect is
// not a link hop.
func (c *Crawler) redirected(e Entry, p *Page, target urlnorm.URL) []Entry {
	p.RedirectTo = target
	p.Failure = "redirect: to " + target.String()
	if c.seenInFetch(p, target) || !c.inScope(target) {
		return nil
	}
	return []Entry{{Topic: e.Topic, URL: target, Depth: e.Depth, Score: e.Score, Parent: e.Parent}}
}

// inScope reports whether u may be fetched by this crawl when a page or
// a redirect leads to it.
func (c *Crawler) inScope(u urlnorm.URL) bool {
	return len(u.String()) <= c.cfg.MaxURLLength && c.allowed(u) && !c.known[u]
}

// urlLookup returns Config.URLs, or the Store when it is a URLLookup, or
// nil.
func (c *Crawler) urlLookup() URLLookup {
	if c.cfg.URLs != nil {
		return c.cfg.URLs
	}
	l, _ := StoreAs[URLLookup](c.store)
	return l
}

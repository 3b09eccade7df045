package fetch

import (
	"container/list"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// robotsCache holds the robots.txt verdicts of recently seen origins. It is
// an LRU of bounded size, so a crawl of many hosts does not grow it forever.
type robotsCache struct {
	f     *Fetcher
	ttl   time.Duration
	max   int
	mu    sync.Mutex
	byKey map[string]*list.Element
	lru   *list.List
}

type robotsEntry struct {
	origin string
	ready  chan struct{} // closed when rules and expires are set
	rules  *robotsRules
	all    bool   // allow everything (no robots.txt, 4xx)
	none   bool   // disallow everything (5xx, unreadable)
	why    string // why none is set
	// netErr is the network failure that kept robots.txt from being
	// fetched: the origin's pages fail as unreachable, not as refused,
	// and the entry is not cached.
	netErr error
	// abandoned means the load stopped because its caller's context
	// ended: the entry says nothing about the origin and is not cached.
	abandoned bool
	expires   time.Time
	delay     time.Duration // Crawl-delay of our group, capped
	sitemaps  []string      // Sitemap: lines
}

func newRobotsCache(f *Fetcher, ttl time.Duration, max int) *robotsCache {
	return &robotsCache{f: f, ttl: ttl, max: max, byKey: make(map[string]*list.Element), lru: list.New()}
}

// allowed reports whether robots.txt of u's origin allows fetching u, and
// why not when it does not. The error is non-nil when ctx ended while
// waiting, or when robots.txt could not be fetched for a network failure
// (a *robotsNetError).
func (c *robotsCache) allowed(ctx context.Context, u urlnorm.URL) (bool, string, error) {
	for {
		e, err := c.entry(ctx, u.Origin())
		if err != nil {
			return false, "", err
		}
		switch {
		case e.abandoned:
			continue // its loader gave up; load it again with our context
		case e.netErr != nil:
			return false, "", &robotsNetError{err: e.netErr}
		case e.all:
			return true, "", nil
		case e.none:
			return false, e.why, nil
		}
		if e.delay > 0 {
			c.f.hosts.setDelay(u.Host(), e.delay)
		}
		if !e.rules.allowed(u.RequestURI()) {
			return false, "disallowed by robots.txt", nil
		}
		return true, "", nil
	}
}

// entry returns the loaded entry of origin, loading it with ctx when it is
// missing or stale.
func (c *robotsCache) entry(ctx context.Context, origin string) (*robotsEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	var e *robotsEntry
	if el, ok := c.byKey[origin]; ok {
		e = el.Value.(*robotsEntry)
		select {
		case <-e.ready:
			if time.Now().After(e.expires) {
				c.lru.Remove(el)
				delete(c.byKey, origin)
				e = nil
			} else {
				c.lru.MoveToFront(el)
			}
		default:
		}
	}
	owner := false
	if e == nil {
		e = &robotsEntry{origin: origin, ready: make(chan struct{})}
		c.byKey[origin] = c.lru.PushFront(e)
		for c.lru.Len() > c.max {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.byKey, old.Value.(*robotsEntry).origin)
		}
		owner = true
	}
	c.mu.Unlock()
	if owner {
		c.load(ctx, e)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.abandoned && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return e, nil
}

// forget removes e from the cache if it is still there.
func (c *robotsCache) forget(e *robotsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.origin]; ok && el.Value == e {
		c.lru.Remove(el)
		delete(c.byKey, e.origin)
	}
}

// load fetches robots.txt for e.origin. Policy (RFC 9309): 2xx → parse;
// 4xx → allow all; 5xx or unreachable → disallow all, retried sooner.
// Redirects are followed by the HTTP client (up to the usual limit).
func (c *robotsCache) load(ctx context.Context, e *robotsEntry) {
	defer close(e.ready)
	e.expires = time.Now().Add(c.ttl)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.origin+"/robots.txt", nil)
	if err != nil {
		e.none = true
		e.why = fmt.Sprintf("robots.txt request: %v", err)
		return
	}
	req.Header.Set("User-Agent", c.f.cfg.UserAgent)
	// fail: an interrupted load is forgotten, so that the next caller
	// loads again; a server error disallows everything for a while.
	fail := func(why string) {
		if ctx.Err() != nil {
			e.abandoned = true
			c.forget(e)
			return
		}
		e.none = true
		e.why = why + "; the site is treated as disallowed for now"
		e.expires = time.Now().Add(c.ttl / 10)
	}
	// RFC 9309 §2.3.1.2: follow at least five redirects; past them (a
	// loop) the last answer, a redirect, allows everything, below.
	client := &http.Client{Transport: c.f.tr, Timeout: c.f.cfg.Timeout, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) > robotsRedirects {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	// The request counts for the host's politeness, and for its address's
	// when hosts sharing one are paced: it waits its turn by the delay,
	// and the first page waits the delay after it, as after any request
	// (robots.txt's own Crawl-delay included). It takes no parallelism
	// slot: a redirect's target is checked while its page holds one.
	if c.f.hosts.pace(ctx, req.URL.Host) == nil {
		_ = c.f.ips.pace(ctx, req.URL.Host) // fails only when ctx ends
	}
	if ctx.Err() != nil {
		e.abandoned = true
		c.forget(e)
		return
	}
	sent := time.Now()
	defer func() {
		if e.abandoned {
			return
		}
		if d := max(c.f.hosts.delay, e.delay); d > 0 {
			c.f.hosts.holdUntil(req.URL.Host, sent.Add(d))
		}
		if c.f.ips != nil && c.f.ips.gate.delay > 0 {
			c.f.ips.holdUntil(ctx, req.URL.Host, sent.Add(c.f.ips.gate.delay))
		}
	}()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			e.abandoned = true
			c.forget(e)
			return
		}
		// The network, not the site, said no: the waiting callers learn
		// it, the next ones try again.
		e.netErr = err
		c.forget(e)
		return
	}
	defer closeBody(resp.Body)
	switch {
	case resp.StatusCode >= 500:
		fail(fmt.Sprintf("robots.txt answered HTTP %d", resp.StatusCode))
		return
	case resp.StatusCode >= 400:
		e.all = true
		return
	case resp.StatusCode >= 300: // redirect chain too long
		e.all = true
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 500<<10)) // RFC 9309: at least 500 KiB
	if err != nil {
		fail(fmt.Sprintf("robots.txt unreadable (%v)", err))
		return
	}
	e.rules = parseRobots(body, c.f.cfg.UserAgent)
	e.delay = c.f.crawlDelay(e.origin, e.rules.crawlDelay)
	e.sitemaps = e.rules.sitemaps
}

// robotsRedirects is how many redirects a robots.txt fetch follows.
const robotsRedirects = 5

// robotsNetError is a network failure while fetching robots.txt.
type robotsNetError struct{ err error }

func (e *robotsNetError) Error() string { return "robots.txt unreachable: " + e.err.Error() }

func (e *robotsNetError) Unwrap() error { return e.err }

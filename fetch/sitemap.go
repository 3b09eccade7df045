package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/scent-crawler/scent/sitemap"
	"github.com/scent-crawler/scent/urlnorm"
)

// Limits of sitemap discovery per site.
const (
	maxSitemapsPerSite = 8        // sitemaps fetched, indexes included
	maxSitemapURLs     = 50000    // URLs kept from all of them
	maxSitemapBytes    = 10 << 20 // one sitemap, after decompression
)

// Sitemap is one sitemap read for a site: the URLs it lists, or why it
// was refused.
type Sitemap struct {
	URL    string
	Status int
	// Index is set for a sitemap index, whose Entries are sitemaps.
	Index   bool
	Entries []sitemap.Entry
	// Failure is "reason: detail" when the sitemap could not be fetched
	// or was refused (malformed, too large, too many entries).
	Failure string
}

// Sitemaps reads the sitemaps of the site at origin (scheme://host[:port]):
// those its robots.txt names on Sitemap: lines and /sitemap.xml, following
// sitemap indexes, with the fetcher's robots.txt and politeness rules. At
// most 8 sitemaps of at most 10 MiB each are read, and at most 50,000 URLs
// kept. A /sitemap.xml that does not exist is not reported; every other
// sitemap is, with its failure when it has one. The error is set only
// when ctx ends.
//
// allow, when not nil, bounds the sitemaps read on other sites than
// origin's (a crawl's scope, which robots.txt or an index may lead out
// of): one it refuses is not requested and is reported with its failure,
// "scope: …", and a sitemap redirected to a URL of another site that it
// refuses is not read. The site's own sitemaps are read whatever it says,
// as its robots.txt is.
func (f *Fetcher) Sitemaps(ctx context.Context, origin string, allow func(urlnorm.URL) error) ([]Sitemap, error) {
	var queue []string
	if !f.cfg.IgnoreRobots {
		e, err := f.robots.entry(ctx, origin)
		if err != nil {
			return nil, err
		}
		queue = append(queue, e.sitemaps...)
	}
	guess := origin + "/sitemap.xml"
	seen := make(map[string]bool)
	for _, q := range queue {
		seen[q] = true
	}
	if !seen[guess] {
		queue = append(queue, guess)
		seen[guess] = true
	}
	var out []Sitemap
	urls := 0
	for n := 0; len(queue) > 0 && n < maxSitemapsPerSite && urls < maxSitemapURLs; n++ {
		loc := queue[0]
		queue = queue[1:]
		sm := f.readSitemap(ctx, loc, maxSitemapURLs-urls, origin, allow)
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if loc == guess && (sm.Status == http.StatusNotFound || sm.Status == http.StatusGone) {
			continue
		}
		out = append(out, sm)
		if sm.Index {
			for _, e := range sm.Entries {
				if !seen[e.Loc] {
					seen[e.Loc] = true
					queue = append(queue, e.Loc)
				}
			}
			continue
		}
		urls += len(sm.Entries)
	}
	return out, nil
}

// readSitemap fetches and parses one sitemap of the site at origin, if
// allow allows it (Sitemaps).
func (f *Fetcher) readSitemap(ctx context.Context, loc string, maxEntries int, origin string, allow func(urlnorm.URL) error) Sitemap {
	sm := Sitemap{URL: loc}
	u, err := urlnorm.Parse(loc)
	if err != nil {
		sm.Failure = fmt.Sprintf("%s: %v", ReasonBadURL, err)
		return sm
	}
	// outOfScope says why a sitemap at t may not be read, or is nil.
	outOfScope := func(t urlnorm.URL) error {
		if allow == nil || t.Origin() == origin {
			return nil
		}
		return allow(t)
	}
	if err := outOfScope(u); err != nil {
		sm.Failure = "scope: " + err.Error()
		return sm
	}
	if !f.cfg.IgnoreRobots {
		ok, why, err := f.robots.allowed(ctx, u)
		if err != nil {
			sm.Failure = fmt.Sprintf("%s: %v", ReasonCanceled, err)
			return sm
		}
		if !ok {
			sm.Failure = fmt.Sprintf("%s: %s", ReasonRobots, why)
			return sm
		}
	}
	release, err := f.hosts.acquire(ctx, u.Host())
	if err != nil {
		sm.Failure = fmt.Sprintf("%s: %v", ReasonCanceled, err)
		return sm
	}
	defer release()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		sm.Failure = fmt.Sprintf("%s: %v", ReasonBadURL, err)
		return sm
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	client := &http.Client{Transport: f.tr, Timeout: f.cfg.Timeout, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errTooManyRedirects
		}
		if t, err := urlnorm.Parse(r.URL.String()); err == nil {
			if err := outOfScope(t); err != nil {
				return &scopeError{fmt.Errorf("redirected to %s: %w", t, err)}
			}
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		var se *scopeError
		if errors.As(err, &se) {
			sm.Failure = "scope: " + se.Error()
		} else if errors.As(err, &ue) && ue.Timeout() {
			sm.Failure = fmt.Sprintf("%s: %v", ReasonTimeout, err)
		} else {
			sm.Failure = fmt.Sprintf("%s: %v", ReasonNetwork, err)
		}
		return sm
	}
	defer closeBody(resp.Body)
	sm.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		sm.Failure = fmt.Sprintf("%s: HTTP %d", ReasonStatus, resp.StatusCode)
		return sm
	}
	parsed, err := sitemap.Parse(io.LimitReader(resp.Body, maxSitemapBytes+1), sitemap.Limits{MaxBytes: maxSitemapBytes, MaxEntries: maxEntries})
	if err != nil {
		sm.Failure = "sitemap: " + err.Error()
		return sm
	}
	sm.Index, sm.Entries = parsed.Index, parsed.Entries
	return sm
}

// scopeError is the redirect of a sitemap to a URL that the allow of
// its Sitemaps call refuses.
type scopeError struct{ err error }

func (e *scopeError) Error() string { return e.err.Error() }

// closeBody closes the body of a response read in part (or not at all),
// after reading what is left of a small one: a body closed before its
// end takes its connection down with it, and a crawl asking each new
// host for its sitemap would then open a connection per host (through a
// proxy, one per request).
func closeBody(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, 16<<10)
	_ = b.Close()
}

package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/urlnorm"
)

// Site-based normalization (Config.SiteNorm, SPEC §5, paper 003).
//
// Measuring: after a page u1 is fetched with success, the worker takes
// every EN its host is still sampling (Rules.Wants) that changes u1,
// fetches u2 = u1.Extend(EN) (following redirects, robots.txt and the
// host's politeness applying) and compares the two documents (final URL,
// SHA-256 of the body, min-hash of the text) into one of the paper's
// outcomes; whether u2 is known comes from the store (URLLookup). Every
// Policy.VerifyEvery pages of a host with adopted ENs, it checks one link
// of the page per adopted EN the same way (both forms fetched), so that a
// host whose behaviour changes loses the rule. The measurement requests
// fit in a share of the crawl's fetches (Policy.MaxShare, reckoned on
// what was committed): a pair the share does not allow is not measured.
//
// Applying: the scheduler counts the pairs in commit order (Rules.Observe)
// and, before pushing, replaces each entry's URL by its host's canonical
// form (Rules.Canonical); the page's links keep the URLs as written. The
// rules change only at commits, so a lockstep crawl (and the bfs queue,
// which commits in send order) applies them to the same pushes whatever
// the timing. Which pairs a fetch measures depends on the rules as
// published when its entry was taken from the frontier (publishNorm), so
// a lockstep crawl measures the same pairs too; the bfs queue takes
// entries while fetches are in flight, so there it depends on timing.

// measureNorm measures the pairs of the page p fetched for e and records
// them on p.
func (w *worker) measureNorm(ctx context.Context, e Entry, p *Page) {
	c := w.c
	rules := c.cfg.SiteNorm
	if rules == nil || p.Failure != "" {
		return
	}
	host := e.URL.Host()
	p1 := sitenorm.Doc{Present: true, Status: p.Status, Final: p.FinalURL, Hash: p.ContentHash, Sig: p.Signature}
	for _, ext := range rules.Wants(host) {
		u2 := e.URL.Extend(ext)
		if u2 == e.URL {
			continue
		}
		pr, ok := w.pair(ctx, ext, e.URL, u2, &p1)
		if !ok {
			break
		}
		p.NormPairs = append(p.NormPairs, pr)
	}
	for _, ext := range rules.Verify(host) {
		for _, l := range p.Links {
			t := l.Target
			if t.Host() != host || !c.inScope(t) {
				continue
			}
			u2 := t.Extend(ext)
			if u2 == t {
				continue
			}
			if pr, ok := w.pair(ctx, ext, t, u2, nil); ok {
				p.NormPairs = append(p.NormPairs, pr)
			}
			break
		}
	}
}

// pair measures u1 (whose document is p1, or fetched when p1 is nil)
// against u2; ok is false when the share of fetches does not allow it or
// the crawl is ending.
func (w *worker) pair(ctx context.Context, ext urlnorm.Extension, u1, u2 urlnorm.URL, p1 *sitenorm.Doc) (sitenorm.Pair, bool) {
	c := w.c
	rules := c.cfg.SiteNorm
	cost := 1
	if p1 == nil {
		cost = 2
	}
	if !rules.Allow(cost) {
		return sitenorm.Pair{}, false
	}
	known := false
	if l := c.urlLookup(); l != nil {
		k, _, err := l.KnownURL(ctx, c.crawlID, u2)
		if err != nil {
			return sitenorm.Pair{}, false
		}
		known = k
	}
	if p1 == nil {
		d, ok := w.doc(ctx, u1)
		if !ok {
			return sitenorm.Pair{}, false
		}
		p1 = &d
	}
	p2, ok := w.doc(ctx, u2)
	if !ok {
		return sitenorm.Pair{}, false
	}
	out := sitenorm.Classify(*p1, p2, known)
	detail := "u1 " + statusText(*p1) + ", u2 " + statusText(p2)
	if known {
		detail += ", u2 known"
	}
	return sitenorm.Pair{Host: u1.Host(), Ext: ext, URL: u1, Normalized: u2, Outcome: out,
		Present: p1.Present, Direct: p2.Present && !p2.Redirected, Fetches: cost, Detail: detail, At: c.cfg.Now()}, true
}

func statusText(d sitenorm.Doc) string {
	s := "status " + strconv.Itoa(d.Status)
	if d.Redirected {
		s += " at " + d.Final.String()
	}
	return s
}

// doc fetches u for a measurement, following redirects; ok is false when
// the crawl is ending.
func (w *worker) doc(ctx context.Context, u urlnorm.URL) (sitenorm.Doc, bool) {
	c := w.c
	f := c.fetcher
	if o, isOutage := f.(*outage); isOutage {
		f = o.inner // a measurement is not retried later
	}
	res, err := f.Fetch(ctx, u, nil)
	if ctx.Err() != nil || fetch.ReasonOf(err) == fetch.ReasonCanceled {
		return sitenorm.Doc{}, false
	}
	d := sitenorm.Doc{Final: u}
	if res != nil {
		d.Status = res.Status
		if !res.FinalURL.IsZero() {
			d.Final = res.FinalURL
		}
	}
	if fe, isErr := err.(*fetch.Error); isErr && d.Status == 0 {
		d.Status = fe.Status
	}
	d.Redirected = d.Final != u
	if err != nil || res == nil || res.Status < 200 || res.Status > 299 {
		return d, true
	}
	d.Present = true
	sum := sha256.Sum256(res.Body)
	d.Hash = hex.EncodeToString(sum[:])
	if pg, err := segment.Split(res.Body, res.ContentType, d.Final, c.cfg.Segment); err == nil {
		d.Sig = c.signer.Sign(pg.Text)
	}
	return d, true
}

// observeNorm counts a page to be committed and its measured pairs into
// the rules (in commit order, as results are received) and records on
// the page the rules its pairs changed.
func (c *Crawler) observeNorm(p *Page) {
	rules := c.cfg.SiteNorm
	if rules == nil {
		return
	}
	rules.CountFetch(1)
	if p.Failure == "" {
		rules.CountPage(p.URL.Host())
	}
	for _, pr := range p.NormPairs {
		p.NormRules = append(p.NormRules, rules.Observe(pr))
	}
}

// canonical returns push with every URL in its host's canonical form.
func (c *Crawler) canonical(push []Entry) []Entry {
	rules := c.cfg.SiteNorm
	if rules == nil {
		return push
	}
	for i := range push {
		push[i].URL = rules.Canonical(push[i].URL)
	}
	return push
}

// job is an entry handed to a worker: fetched at url, its canonical form
// by the site rules published when it was taken (publishNorm), or
// recorded without a fetch as an alias of url (alias) when that form is
// being fetched or was fetched already.
type job struct {
	e     Entry
	url   urlnorm.URL
	alias bool
	tag   int64 // a crawl that guesses its rounds tells its fetches by it (guess.go)
	// gate, for a guessed fetch, closes once its round's pop is in: a
	// redirect asks the store then (guess.go).
	gate <-chan struct{}
}

// jobs turns entries taken from the frontier into jobs, in order. A URL
// waiting in a form its host's rules no longer keep (a rule adopted since
// it was pushed) is fetched in canonical form, once: a later entry for
// that form, or for another form of it, becomes an alias. Entries are
// resolved in the order they are taken, so a lockstep crawl resolves
// them the same way whatever the timing.
func (r *run) jobs(es []Entry) []job {
	rules := r.c.cfg.SiteNorm
	out := make([]job, 0, len(es))
	for i, e := range es {
		j := job{e: e, url: e.URL}
		if rules != nil {
			j.url = rules.CanonicalPublished(e.URL)
			j.alias = r.fetching[j.url] > 0 || j.url != e.URL && r.fetchedAlready(j.url, es[i+1:])
			if !j.alias {
				r.fetching[j.url]++
			}
		}
		out = append(out, j)
	}
	return out
}

// fetchedAlready reports whether the store has u as fetched or leased by
// a fetch not among later (entries taken with it, still to be handed
// out: those then become aliases of this one).
func (r *run) fetchedAlready(u urlnorm.URL, later []Entry) bool {
	l := r.c.urlLookup()
	if l == nil {
		return false
	}
	_, taken, err := l.KnownURL(r.ctx, r.front.crawl, u)
	if err != nil || !taken {
		return false
	}
	for _, e := range later {
		if e.URL == u {
			return false
		}
	}
	return true
}

// fetched releases the URLs of committed (or canceled) jobs.
func (r *run) fetched(rs []result) {
	if r.fetching == nil {
		return
	}
	for _, res := range rs {
		if n := r.fetching[res.url] - 1; n > 0 {
			r.fetching[res.url] = n
		} else {
			delete(r.fetching, res.url)
		}
	}
}

// publishNorm makes the rules committed so far the ones the next fetches
// measure by (sitenorm.Rules.Publish). It runs when entries are taken from
// the frontier: in a lockstep crawl, between rounds.
func (c *Crawler) publishNorm() {
	if c.cfg.SiteNorm != nil {
		c.cfg.SiteNorm.Publish()
	}
}

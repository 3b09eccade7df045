package revisit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// Page is a stored page that may be checked, with what its latest version
// needs for a conditional request and for change detection.
type Page struct {
	ID          int64
	URL         urlnorm.URL
	Version     int    // number of the latest version, from 1
	ETag        string // of the latest version; may be empty
	Modified    string // Last-Modified of the latest version, as sent
	ContentHash string // hex SHA-256 of the latest version's body
	// CheckedAt is the time of the latest check, or of the first fetch
	// when the page was never checked; FetchedAt is the first fetch's.
	CheckedAt time.Time
	FetchedAt time.Time
	// FinalURL is where the crawl's fetch of URL ended (after its
	// redirects); zero when the store does not say (then URL).
	FinalURL urlnorm.URL
	// SitemapLastMod is when the site's sitemap says the page last
	// changed (the latest <lastmod> listed for its URL); zero when no
	// sitemap read by the crawl gives one.
	SitemapLastMod time.Time
}

// Version is one stored version of a page.
type Version struct {
	Number      int // from 1
	FetchedAt   time.Time
	Status      int
	Size        int // body bytes
	ContentType string
	ETag        string
	Modified    string
	ContentHash string
	Title       string
	Text        string // extracted text, words separated by white space
	// Change is the change from the previous version, measured with
	// Costs; both are zero for version 1.
	Change change.Result
	Costs  change.Costs
}

// Check is the outcome of one check of a page: one change-log row and,
// when the page changed, its new version.
type Check struct {
	PageID    int64
	URL       urlnorm.URL
	CheckedAt time.Time
	// Status is the HTTP status of the answer: 304 for a conditional hit,
	// 0 when no answer was received.
	Status int
	// Size is the number of body bytes received (0 for a 304 or a failure).
	Size int
	// UpdateSize is δ_E of the change, 0 when the page did not change.
	UpdateSize float64
	// Changed reports that the body's hash differs from the latest
	// version's.
	Changed bool
	// Version is the number of the page's latest version after the check.
	Version int
	// Failure is empty unless the check failed; it starts with the reason
	// (a fetch.Reason, or "parse").
	Failure string
	// New is the new version when Changed; its Number equals Version. It
	// is nil when the check is read back from the change log.
	New *Version
	// Validators, when set, are the ETag and Last-Modified the server now
	// sends for a body that did not change: they replace the latest
	// version's, so that the next check is conditional on them. Nil when
	// read back from the change log.
	Validators *Validators
}

// Validators are the validators of a conditional GET, as the server sent
// them.
type Validators struct {
	ETag, Modified string
}

// ErrNoVersion is what the errors of a Store wrap when it holds no such
// page, or no version of that number of a page.
var ErrNoVersion = errors.New("no such page version")

// Store is where the pages to check come from and where checks go.
type Store interface {
	// RevisitPages returns up to limit successfully fetched pages of the
	// crawl whose ID is greater than after, in ID order.
	RevisitPages(ctx context.Context, crawl, after int64, limit int) ([]Page, error)
	// VersionText returns the extracted text of a version of a page; its
	// error wraps ErrNoVersion when the store has no such version.
	VersionText(ctx context.Context, page int64, version int) (string, error)
	// RecordCheck appends c to the change log and, when c.New is set,
	// stores the new version (keeping the older ones), in one transaction.
	// A new version whose number does not follow the page's latest is
	// refused, and nothing of c is recorded; so is a new version of a page
	// the store does not hold (an error wrapping ErrNoVersion).
	RecordCheck(ctx context.Context, c *Check) error
}

// Fetcher downloads a page, adding hdr to the request; a 304 answer is a
// success with an empty body. *fetch.Fetcher implements it.
type Fetcher interface {
	Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*fetch.Result, error)
}

// Config sets a revisit run. The zero value of each field except Crawl
// and Costs means its documented default.
type Config struct {
	// Crawl is the ID of the crawl whose pages are checked. Required.
	Crawl int64
	// OlderThan selects the pages whose latest check (or first fetch) is
	// at least this long before the start of the run. Zero checks every
	// page.
	OlderThan time.Duration
	// SitemapLastMod trusts the sitemaps' <lastmod>: a page whose
	// sitemap date is not after its latest check (or fetch) is not due,
	// and one whose date is after it is due whatever OlderThan says.
	SitemapLastMod bool
	// Costs are the IED costs s (copy, shrink) and t (move), each in
	// [0, 1]; the zero value makes those operations free. The paper uses
	// change.DefaultCosts (s = t = 0.75).
	Costs change.Costs
	// Workers is the number of pages checked at once. Default 4.
	Workers int
	// Segment are the text extraction options, as for the crawl.
	Segment segment.Options
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Progress, when set, receives a progress line every ProgressEvery
	// (default 1s) and a last one at the end.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// Validate reports the first setting that is out of range.
func (c Config) Validate() error {
	switch {
	case c.Crawl <= 0:
		return errors.New("revisit: no crawl given")
	case c.OlderThan < 0:
		return errors.New("revisit: the age of pages to check must not be negative")
	case c.Workers < 0:
		return errors.New("revisit: workers must not be negative")
	case c.ProgressEvery < 0:
		return errors.New("revisit: progress interval must not be negative")
	}
	if err := c.Costs.Validate(); err != nil {
		return fmt.Errorf("revisit: %w", err)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ProgressEvery == 0 {
		c.ProgressEvery = time.Second
	}
	return c
}

// Summary counts the checks of a run.
type Summary struct {
	Checked     int // checks recorded: Changed + Unchanged + NotModified + Failed
	Changed     int // new versions stored
	Unchanged   int // bodies with the latest version's hash
	NotModified int // 304 answers
	Failed      int // failed fetches or unreadable bodies
	NotDue      int // pages skipped: checked recently, or unchanged since by their sitemap's lastmod
}

// isDue reports whether p is to be checked in a run whose pages checked
// after cutoff are recent.
func isDue(cfg Config, p Page, cutoff time.Time) bool {
	if cfg.SitemapLastMod && !p.SitemapLastMod.IsZero() {
		return p.SitemapLastMod.After(p.CheckedAt)
	}
	return cfg.OlderThan <= 0 || !p.CheckedAt.After(cutoff)
}

// pageBatch is how many pages are read from the store at a time.
const pageBatch = 256

// Run checks the due pages of cfg.Crawl once each and records every check
// in st. It returns when all due pages are checked, when the store fails
// (the error says which page) or when ctx ends (ctx.Err(), with the checks
// recorded so far counted in the Summary).
func Run(ctx context.Context, cfg Config, st Store, f Fetcher) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	if st == nil || f == nil {
		return Summary{}, errors.New("revisit: a store and a fetcher are required")
	}
	cfg = cfg.withDefaults()
	r := &runner{cfg: cfg, st: st, f: f}
	cutoff := cfg.Now().Add(-cfg.OlderThan)

	stopProgress := r.startProgress()
	g, gctx := errgroup.WithContext(ctx)
	due := make(chan Page, cfg.Workers)
	g.Go(func() error {
		defer close(due)
		var after int64
		for {
			pages, err := st.RevisitPages(gctx, cfg.Crawl, after, pageBatch)
			if err != nil {
				return fmt.Errorf("revisit: read pages: %w", err)
			}
			for _, p := range pages {
				after = p.ID
				if !isDue(cfg, p, cutoff) {
					r.count(func(s *Summary) { s.NotDue++ })
					continue
				}
				select {
				case due <- p:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			if len(pages) < pageBatch {
				return nil
			}
		}
	})
	for range cfg.Workers {
		g.Go(func() error {
			for p := range due {
				c, err := r.check(gctx, p)
				if err != nil {
					return err
				}
				if err := st.RecordCheck(gctx, c); err != nil {
					if gctx.Err() != nil {
						return gctx.Err()
					}
					return fmt.Errorf("revisit: record check of %s: %w", p.URL, err)
				}
				r.tally(c)
			}
			return nil
		})
	}
	err := g.Wait()
	stopProgress()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sum, err
}

type runner struct {
	cfg Config
	st  Store
	f   Fetcher
	mu  sync.Mutex
	sum Summary
}

func (r *runner) count(fn func(*Summary)) {
	r.mu.Lock()
	fn(&r.sum)
	r.mu.Unlock()
}

func (r *runner) tally(c *Check) {
	r.count(func(s *Summary) {
		s.Checked++
		switch {
		case c.Failure != "":
			s.Failed++
		case c.Changed:
			s.Changed++
		case c.Status == http.StatusNotModified:
			s.NotModified++
		default:
			s.Unchanged++
		}
	})
}

// Conditional returns the headers of a conditional GET for the latest
// version of p: If-None-Match from its ETag and If-Modified-Since from its
// Last-Modified, each when present.
func Conditional(p Page) http.Header {
	h := http.Header{}
	if p.ETag != "" {
		h.Set("If-None-Match", p.ETag)
	}
	if p.Modified != "" {
		h.Set("If-Modified-Since", p.Modified)
	}
	return h
}

// check fetches p and measures its change. The error is non-nil only when
// the run must stop: the context ended or the store failed.
func (r *runner) check(ctx context.Context, p Page) (*Check, error) {
	c := &Check{PageID: p.ID, URL: p.URL, CheckedAt: r.cfg.Now(), Version: p.Version}
	res, err := r.f.Fetch(ctx, p.URL, Conditional(p))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			c.Status = fe.Status
			c.Failure = string(fe.Reason)
			if fe.Err != nil {
				c.Failure += ": " + fe.Err.Error()
			}
		} else {
			c.Failure = "fetch: " + err.Error()
		}
		return c, nil
	}
	c.Status = res.Status
	if res.Status == http.StatusNotModified {
		return c, nil
	}
	if was := p.FinalURL; !was.IsZero() && !res.FinalURL.IsZero() && res.FinalURL != was {
		// The URL now leads to another page: no version of this one.
		c.Failure = fmt.Sprintf("redirect: now to %s (crawled at %s)", res.FinalURL, was)
		return c, nil
	}
	c.Size = len(res.Body)
	sum := sha256.Sum256(res.Body)
	hash := hex.EncodeToString(sum[:])
	if hash == p.ContentHash {
		if v := (Validators{res.Header.Get("ETag"), res.Header.Get("Last-Modified")}); v != (Validators{p.ETag, p.Modified}) {
			c.Validators = &v
		}
		return c, nil
	}
	final := res.FinalURL
	if final.IsZero() {
		final = p.URL
	}
	pg, err := segment.Split(res.Body, res.ContentType, final, r.cfg.Segment)
	if err != nil {
		c.Failure = "parse: " + err.Error()
		return c, nil
	}
	old, err := r.st.VersionText(ctx, p.ID, p.Version)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("revisit: read version %d of %s: %w", p.Version, p.URL, err)
	}
	ch := change.IED(change.Words(old), change.Words(pg.Text), r.cfg.Costs)
	c.Changed = true
	c.Version = p.Version + 1
	c.UpdateSize = ch.Delta
	c.New = &Version{
		Number:      c.Version,
		FetchedAt:   c.CheckedAt,
		Status:      res.Status,
		Size:        len(res.Body),
		ContentType: res.ContentType,
		ETag:        res.Header.Get("ETag"),
		Modified:    res.Header.Get("Last-Modified"),
		ContentHash: hash,
		Title:       pg.Title,
		Text:        pg.Text,
		Change:      ch,
		Costs:       r.cfg.Costs,
	}
	return c, nil
}

// startProgress prints a progress line every ProgressEvery until the
// returned function is called, which prints the last line and waits for
// the printing goroutine.
func (r *runner) startProgress() func() {
	if r.cfg.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.printProgress("")
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		r.printProgress("\n")
	}
}

func (r *runner) printProgress(end string) {
	r.mu.Lock()
	s := r.sum
	r.mu.Unlock()
	fmt.Fprintf(r.cfg.Progress, "\rchecked %d: changed %d, unchanged %d, not modified %d, failed %d | not due %d   %s",
		s.Checked, s.Changed, s.Unchanged, s.NotModified, s.Failed, s.NotDue, end)
}

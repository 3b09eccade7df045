package fetch

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/scent-crawler/scent/urlnorm"
)

// Config sets a Fetcher's policies. The zero value of each field means the
// documented default; see Validate for the allowed ranges.
type Config struct {
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string
	// Timeout bounds one HTTP exchange, body included. Default 20s.
	Timeout time.Duration
	// MaxBodyBytes is the largest body accepted; larger pages fail with
	// ReasonTooLarge. Default 10 MiB.
	MaxBodyBytes int64
	// MaxRedirects is the longest redirect chain followed. Default 10.
	MaxRedirects int
	// Retries is how many times a 5xx, 429 or network failure is retried.
	// Default 2; negative means none.
	Retries int
	// RetryBackoff is the first retry's wait, doubled on each retry (with
	// jitter) and capped by MaxRetryAfter. Default 500ms.
	RetryBackoff time.Duration
	// MaxRetryAfter caps the wait a Retry-After header may impose; a longer
	// demand fails the page. Default 60s.
	MaxRetryAfter time.Duration
	// ContentTypes lists the accepted media types. Default text/html and
	// application/xhtml+xml; "*" accepts everything.
	ContentTypes []string
	// Proxy is an HTTP proxy URL for every request (e.g. a scent replay).
	Proxy string
	// IgnoreRobots disables robots.txt; it is obeyed by default.
	IgnoreRobots bool
	// HostDelay is the least time between the starts of two requests to one
	// host. Zero means no delay.
	HostDelay time.Duration
	// HostParallelism is the most requests in flight to one host; 0 means
	// no limit.
	HostParallelism int
	// RobotsTTL is how long a robots.txt answer is trusted. Default 1h; a
	// 5xx or network failure is retried after a tenth of it.
	RobotsTTL time.Duration
	// MaxCrawlDelay caps the Crawl-delay a robots.txt may ask for; a
	// longer one is cut to it and the cut is logged. Default 30s;
	// negative ignores Crawl-delay.
	MaxCrawlDelay time.Duration
	// IPDelay and IPParallelism are HostDelay and HostParallelism for
	// all the hosts served from one IP address (the first the resolver
	// gives); 0 means no limit. They need DNS and are not applied
	// through a Proxy, which hides the servers' addresses.
	IPDelay       time.Duration
	IPParallelism int
	// Contact is a URL (or e-mail address) where site owners reach the
	// crawler's operator; it is added to the user agent: "scent/0.1
	// (focused crawler; +CONTACT)".
	Contact string
	// Logf receives notices that are not errors (a Crawl-delay cut to
	// MaxCrawlDelay); nil discards them.
	Logf func(format string, args ...any)
	// KeepRaw keeps every request and response as sent and received
	// (Result.Exchanges), for the raw-response store and WARC files.
	KeepRaw bool
}

// DefaultUserAgent identifies scent to servers.
const DefaultUserAgent = "scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)"

func (c Config) withDefaults() Config {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
		if c.Contact != "" {
			c.UserAgent = "scent/0.1 (focused crawler; +" + c.Contact + ")"
		}
	} else if c.Contact != "" && !strings.Contains(c.UserAgent, c.Contact) {
		c.UserAgent += " (+" + c.Contact + ")"
	}
	if c.MaxCrawlDelay == 0 {
		c.MaxCrawlDelay = 30 * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Timeout == 0 {
		c.Timeout = 20 * time.Second
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 10 << 20
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = 10
	}
	if c.Retries == 0 {
		c.Retries = 2
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 500 * time.Millisecond
	}
	if c.MaxRetryAfter == 0 {
		c.MaxRetryAfter = time.Minute
	}
	if len(c.ContentTypes) == 0 {
		c.ContentTypes = []string{"text/html", "application/xhtml+xml"}
	}
	if c.RobotsTTL == 0 {
		c.RobotsTTL = time.Hour
	}
	return c
}

// Validate reports the first setting that is out of range.
func (c Config) Validate() error {
	switch {
	case c.Timeout < 0:
		return errors.New("fetch: timeout must not be negative")
	case c.MaxBodyBytes < 0 || c.MaxBodyBytes > 1<<30:
		return errors.New("fetch: max body size must be between 0 and 1 GiB")
	case c.MaxRedirects < 0:
		return errors.New("fetch: max redirects must not be negative")
	case c.RetryBackoff < 0 || c.MaxRetryAfter < 0 || c.HostDelay < 0 || c.RobotsTTL < 0:
		return errors.New("fetch: durations must not be negative")
	case c.HostParallelism < 0 || c.IPParallelism < 0:
		return errors.New("fetch: host and IP parallelism must not be negative")
	case c.IPDelay < 0:
		return errors.New("fetch: durations must not be negative")
	case strings.ContainsAny(c.Contact, "\r\n()"):
		return errors.New("fetch: contact must be a URL or an e-mail address")
	}
	for _, t := range c.ContentTypes {
		if err := CheckContentType(t); err != nil {
			return fmt.Errorf("fetch: %w", err)
		}
	}
	if c.Proxy != "" {
		u, err := url.Parse(c.Proxy)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") {
			return fmt.Errorf("fetch: proxy %q is not an http://, https:// or socks5:// URL", c.Proxy)
		}
	}
	return nil
}

// CheckContentType reports whether s can be one of Config.ContentTypes:
// a media type (type/subtype, as text/html) without parameters, compared
// with a response's in any case, or "*" for every type. A wildcard in a
// type (text/*) is refused: it would match no response.
func CheckContentType(s string) error {
	if s == "*" {
		return nil
	}
	mt, params, err := mime.ParseMediaType(s)
	switch {
	case err != nil || !strings.Contains(mt, "/") || len(params) > 0 || mt != strings.ToLower(s):
		return fmt.Errorf("content type %q is not a media type: want type/subtype, as text/html, or * for every type", s)
	case strings.Contains(mt, "*"):
		return fmt.Errorf("content type %q: a wildcard is taken alone only (*, every type); give each media type, as text/html", s)
	}
	return nil
}

// Reason says why a fetch failed.
type Reason string

// The reasons a page can fail.
const (
	ReasonRobots      Reason = "robots"       // disallowed by robots.txt
	ReasonStatus      Reason = "status"       // HTTP status ≥ 400 after retries
	ReasonContentType Reason = "content-type" // media type not accepted
	ReasonTooLarge    Reason = "too-large"    // body over MaxBodyBytes
	ReasonRedirect    Reason = "redirect"     // too many redirects or a loop
	ReasonTimeout     Reason = "timeout"      // no complete answer in time
	ReasonNetwork     Reason = "network"      // connection failure
	ReasonRetryAfter  Reason = "retry-after"  // server asked to wait longer than allowed
	ReasonBadURL      Reason = "bad-url"      // redirect to an unusable URL
	ReasonCharset     Reason = "charset"      // body cannot be decoded
	ReasonEncoding    Reason = "encoding"     // body's content coding (gzip, deflate) broken
	ReasonCanceled    Reason = "canceled"     // the context ended
	ReasonProxy       Reason = "proxy"        // the proxy refused to open a tunnel to an https URL
)

// Error is a failed fetch. Resp is set when a response was received.
type Error struct {
	URL    urlnorm.URL
	Reason Reason
	Status int
	Err    error
	// Answered is set when the server sent its status line and headers
	// and the body then failed (timed out, broke off): the server
	// answered, so the network works (Unreachable is false).
	Answered bool
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("fetch %s: %s: %v", e.URL, e.Reason, e.Err)
	}
	return fmt.Sprintf("fetch %s: %s", e.URL, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the Reason of a fetch error, or "" when err is not one.
func ReasonOf(err error) Reason {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return ""
}

// Result is one fetched page.
type Result struct {
	URL      urlnorm.URL // as requested
	FinalURL urlnorm.URL // after redirects
	Status   int
	Header   http.Header
	// ContentType is the media type with the charset the Body is now in:
	// when the server declared a charset the body has been converted to
	// UTF-8 and ContentType says so.
	ContentType string
	Body        []byte
	Attempts    int
	Duration    time.Duration
	// Exchanges are the request and response of every hop of the last
	// attempt, redirects first, when Config.KeepRaw is set.
	Exchanges []*Exchange
	// Location is the target of a redirect that was not followed
	// (WithoutRedirects): Status is then the 3xx status, FinalURL the URL
	// requested and Body the redirect's own body. Zero otherwise.
	Location urlnorm.URL
}

type noRedirectsKey struct{}

// WithoutRedirects returns a context under which Fetch does not follow
// redirects: a 3xx answer with a usable Location is returned as a success
// with Result.Location set, so that the caller decides whether and when
// the target is fetched (a crawler treats it like a link: checked against
// its visited set and scope, and robots.txt when it is fetched).
func WithoutRedirects(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRedirectsKey{}, true)
}

func followsRedirects(ctx context.Context) bool {
	v, _ := ctx.Value(noRedirectsKey{}).(bool)
	return !v
}

// Fetcher fetches pages; it is safe for concurrent use.
type Fetcher struct {
	cfg      Config
	coll     *colly.Collector
	tr       *http.Transport
	robots   *robotsCache
	hosts    *hostGate
	ips      *ipGate
	mu       sync.Mutex
	inflight map[string]*call // by request id
}

// call carries one request's context and outcome through colly callbacks.
type call struct {
	ctx    context.Context
	resp   *colly.Response
	err    error
	reason Reason
	final  *url.URL
	status int // of the response whose headers set reason
	raw    []*capture
	// location is the redirect target not followed (WithoutRedirects).
	location urlnorm.URL
	// answered: the last request's status line and headers arrived.
	answered atomic.Bool
}

const idHeader = "X-Scent-Fetch"

// maxHeaderBytes bounds a response's header: far above what servers send
// (a few kilobytes), far below net/http's default of 10 MB, which a
// hostile server could make every worker hold at once.
const maxHeaderBytes = 1 << 20

// New returns a Fetcher with the given policies.
func New(cfg Config) (*Fetcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        60 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
	if cfg.Proxy != "" {
		pu, _ := url.Parse(cfg.Proxy)
		tr.Proxy = http.ProxyURL(pu)
	}
	f := &Fetcher{
		cfg:      cfg,
		tr:       tr,
		hosts:    newHostGate(cfg.HostDelay, cfg.HostParallelism),
		ips:      newIPGate(cfg),
		inflight: make(map[string]*call),
	}
	f.robots = newRobotsCache(f, cfg.RobotsTTL, 4096)
	c := colly.NewCollector(
		colly.UserAgent(cfg.UserAgent),
		colly.AllowURLRevisit(),
		colly.IgnoreRobotsTxt(),
		colly.ParseHTTPErrorResponse(),
		colly.MaxBodySize(int(cfg.MaxBodyBytes+1)),
	)
	// No cookie jar: a crawler sends no host the cookies it set (each
	// fetch is as a first visit, as a revisit must be too), and a jar
	// would grow with every host that sets one.
	c.DisableCookies()
	c.WithTransport(&ctxTransport{f: f, base: tr})
	c.SetRequestTimeout(cfg.Timeout)
	c.SetRedirectHandler(f.checkRedirect)
	c.OnResponseHeaders(f.onHeaders)
	c.OnResponse(func(r *colly.Response) {
		if cl := f.lookup(r.Request.Headers.Get(idHeader)); cl != nil {
			cl.resp = r
		}
	})
	c.OnError(func(r *colly.Response, err error) {
		if r == nil || r.Request == nil {
			return
		}
		if cl := f.lookup(r.Request.Headers.Get(idHeader)); cl != nil {
			if cl.reason == "" { // keep the explanation given by onHeaders
				cl.err = err
			}
			if r.StatusCode != 0 {
				cl.resp = r
			}
		}
	})
	f.coll = c
	return f, nil
}

// Close releases idle connections.
func (f *Fetcher) Close() error {
	f.tr.CloseIdleConnections()
	return nil
}

func (f *Fetcher) lookup(id string) *call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inflight[id]
}

// ctxTransport gives each request the context of the Fetch call that made
// it, so that a canceled crawl aborts its requests in flight.
type ctxTransport struct {
	f    *Fetcher
	base http.RoundTripper
}

func (t *ctxTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	id := req.Header.Get(idHeader)
	if id == "" {
		resp, err := t.base.RoundTrip(req)
		if resp != nil {
			gunzipHere(resp, req)
		}
		return resp, err
	}
	ctx := req.Context()
	cl := t.f.lookup(id)
	if cl != nil {
		ctx = cl.ctx
		cl.answered.Store(false) // a redirect's next request
	}
	r2 := req.Clone(ctx) // the id is ours: never send it
	r2.Header.Del(idHeader)
	var c *capture
	if cl != nil && t.f.cfg.KeepRaw {
		c = startCapture(r2)
		cl.raw = append(cl.raw, c)
	}
	resp, err := t.base.RoundTrip(r2)
	if cl != nil && resp != nil && err == nil {
		cl.answered.Store(true)
	}
	if resp != nil && c != nil {
		c.wrap(resp, t.f.cfg.MaxBodyBytes+1)
	}
	if resp != nil {
		gunzipHere(resp, req)
		// colly finds the call by the id in the response's request.
		resp.Request = req
	}
	return resp, err
}

func (f *Fetcher) onHeaders(r *colly.Response) {
	cl := f.lookup(r.Request.Headers.Get(idHeader))
	if cl == nil {
		return
	}
	cl.final = r.Request.URL
	if r.StatusCode >= 300 && r.StatusCode != http.StatusNotModified || r.StatusCode < 200 {
		return // error bodies are small and not parsed; keep them for diagnosis
	}
	if r.StatusCode == http.StatusNotModified {
		return
	}
	if !f.acceptType(r.Headers.Get("Content-Type")) {
		cl.reason = ReasonContentType
		cl.status = r.StatusCode
		cl.err = fmt.Errorf("content type %q not accepted", r.Headers.Get("Content-Type"))
		r.Request.Abort()
		return
	}
	if v := r.Headers.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > f.cfg.MaxBodyBytes {
			cl.reason = ReasonTooLarge
			cl.status = r.StatusCode
			cl.err = fmt.Errorf("content length %d over the %d-byte limit", n, f.cfg.MaxBodyBytes)
			r.Request.Abort()
		}
	}
}

func (f *Fetcher) acceptType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" {
		mt, err = "text/html", nil // servers that say nothing mostly send HTML
	}
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	}
	for _, a := range f.cfg.ContentTypes {
		if a == "*" || strings.EqualFold(a, mt) {
			return true
		}
	}
	return false
}

var errRedirectLoop = errors.New("redirect loop")

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("more than %d redirects: %w", f.cfg.MaxRedirects, errTooManyRedirects)
	}
	target, err := urlnorm.Parse(req.URL.String())
	if err != nil {
		return fmt.Errorf("redirect to %q: %w", req.URL, errBadRedirect)
	}
	if len(via) > 0 {
		if cl := f.lookup(via[0].Header.Get(idHeader)); cl != nil && !followsRedirects(cl.ctx) {
			cl.location = target
			return http.ErrUseLastResponse
		}
	}
	for _, v := range via {
		if p, err := urlnorm.Parse(v.URL.String()); err == nil && p == target {
			return fmt.Errorf("%s: %w", target, errRedirectLoop)
		}
	}
	if !f.cfg.IgnoreRobots && len(via) > 0 {
		cl := f.lookup(via[0].Header.Get(idHeader))
		ctx := context.Background()
		if cl != nil {
			ctx = cl.ctx
		}
		ok, why, err := f.robots.allowed(ctx, target)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s: %s", errRobotsRedirect, target, why)
		}
	}
	return nil
}

var (
	errTooManyRedirects = errors.New("too many redirects")
	errBadRedirect      = errors.New("unusable redirect target")
	errRobotsRedirect   = errors.New("redirect refused by robots.txt")
)

// Fetch downloads u with GET, adding hdr (e.g. If-None-Match) to the
// request. A response with status ≥ 400 is returned with an *Error of
// ReasonStatus; 304 Not Modified is a success with an empty body.
func (f *Fetcher) Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*Result, error) {
	if u.IsZero() {
		return nil, &Error{URL: u, Reason: ReasonBadURL, Err: errors.New("empty URL")}
	}
	start := time.Now()
	if !f.cfg.IgnoreRobots {
		ok, why, err := f.robots.allowed(ctx, u)
		if err != nil {
			var ne *robotsNetError
			if ctx.Err() == nil && errors.As(err, &ne) {
				_, _, cerr := classifyErr(u, err, f.cfg.Proxy != "")
				return nil, cerr
			}
			return nil, &Error{URL: u, Reason: ReasonCanceled, Err: err}
		}
		if !ok {
			return nil, &Error{URL: u, Reason: ReasonRobots, Err: errors.New(why)}
		}
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		res, wait, err := f.attempt(ctx, u, hdr)
		if err == nil {
			res.Attempts = attempt
			res.Duration = time.Since(start)
			return res, nil
		}
		lastErr = err
		if wait < 0 || attempt > f.cfg.Retries {
			return res, err
		}
		if wait == 0 {
			backoff := float64(f.cfg.RetryBackoff) * math.Pow(2, float64(attempt-1))
			backoff *= 0.75 + 0.5*mrand.Float64()
			wait = time.Duration(min(backoff, float64(f.cfg.MaxRetryAfter)))
		} else if wait > f.cfg.MaxRetryAfter {
			return res, &Error{URL: u, Reason: ReasonRetryAfter, Status: statusOf(err),
				Err: fmt.Errorf("server asks to wait %s, more than the %s allowed: %w", wait, f.cfg.MaxRetryAfter, lastErr)}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, &Error{URL: u, Reason: ReasonCanceled, Err: ctx.Err()}
		case <-t.C:
		}
	}
}

func statusOf(err error) int {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Status
	}
	return 0
}

// attempt makes one request. wait < 0 means the error is final; wait == 0
// means retry with backoff; wait > 0 is a server-requested delay.
func (f *Fetcher) attempt(ctx context.Context, u urlnorm.URL, hdr http.Header) (*Result, time.Duration, error) {
	release, err := f.hosts.acquire(ctx, u.Host())
	if err != nil {
		return nil, -1, &Error{URL: u, Reason: ReasonCanceled, Err: err}
	}
	defer release()
	releaseIP, err := f.ips.acquire(ctx, u)
	if err != nil {
		return nil, -1, &Error{URL: u, Reason: ReasonCanceled, Err: err}
	}
	defer releaseIP()

	id := newID()
	cl := &call{ctx: ctx}
	f.mu.Lock()
	f.inflight[id] = cl
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, id)
		f.mu.Unlock()
	}()

	h := http.Header{}
	for k, v := range hdr {
		h[k] = append([]string(nil), v...)
	}
	h.Set(idHeader, id)
	h.Set("User-Agent", f.cfg.UserAgent)
	if h.Get("Accept") == "" {
		h.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
	}
	reqErr := f.coll.Request(http.MethodGet, u.String(), nil, colly.NewContext(), h)
	if ctx.Err() != nil {
		return nil, -1, &Error{URL: u, Reason: ReasonCanceled, Err: ctx.Err()}
	}
	if cl.reason != "" {
		return nil, -1, &Error{URL: u, Reason: cl.reason, Status: cl.status, Err: cl.err}
	}
	if cl.resp == nil {
		if reqErr == nil {
			reqErr = cl.err
		}
		res, d, err := classifyErr(u, reqErr, f.cfg.Proxy != "")
		if fe, ok := err.(*Error); ok && cl.answered.Load() && (fe.Reason == ReasonTimeout || fe.Reason == ReasonNetwork) {
			fe.Answered = true
			fe.Err = fmt.Errorf("body, after the status and headers came: %w", fe.Err)
		}
		return res, d, err
	}
	r := cl.resp
	final := u
	if cl.final != nil {
		if fu, err := urlnorm.Parse(cl.final.String()); err == nil {
			final = fu
		}
	} else if r.Request != nil && r.Request.URL != nil {
		if fu, err := urlnorm.Parse(r.Request.URL.String()); err == nil {
			final = fu
		}
	}
	res := &Result{URL: u, FinalURL: final, Status: r.StatusCode, Body: r.Body, Location: cl.location}
	for _, c := range cl.raw {
		res.Exchanges = append(res.Exchanges, c.exchange())
	}
	if r.Headers != nil {
		res.Header = *r.Headers
	}
	res.ContentType = decodedType(res.Header.Get("Content-Type"))
	if reqErr != nil && r.StatusCode < 400 {
		if strings.Contains(reqErr.Error(), "charset") || strings.Contains(reqErr.Error(), "encoding") {
			return res, -1, &Error{URL: u, Reason: ReasonCharset, Status: r.StatusCode, Err: reqErr}
		}
	}
	if int64(len(r.Body)) > f.cfg.MaxBodyBytes {
		res.Body = nil
		return res, -1, &Error{URL: u, Reason: ReasonTooLarge, Status: r.StatusCode,
			Err: fmt.Errorf("body over the %d-byte limit", f.cfg.MaxBodyBytes)}
	}
	if r.StatusCode >= 400 {
		e := &Error{URL: u, Reason: ReasonStatus, Status: r.StatusCode, Err: fmt.Errorf("HTTP %d", r.StatusCode)}
		switch {
		case r.StatusCode == http.StatusTooManyRequests || r.StatusCode == http.StatusServiceUnavailable:
			if d, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
				if d == 0 {
					d = time.Millisecond
				}
				// The whole host waits, not only this page.
				f.hosts.holdUntil(u.Host(), time.Now().Add(min(d, f.cfg.MaxRetryAfter)))
				return res, d, e
			}
			return res, 0, e
		case r.StatusCode >= 500:
			return res, 0, e
		}
		return res, -1, e
	}
	if r.StatusCode >= 300 && r.StatusCode < 400 && r.StatusCode != http.StatusNotModified && res.Location.IsZero() {
		// A redirect that names no place to go (followed redirects end
		// here only then): no page.
		return res, -1, &Error{URL: u, Reason: ReasonRedirect, Status: r.StatusCode, Err: fmt.Errorf("HTTP %d without a Location to go to", r.StatusCode)}
	}
	return res, 0, nil
}

// decodedType returns the Content-Type of a body as colly hands it over:
// colly converts a body to UTF-8 whenever the header names a charset,
// except for image, video, audio and font types.
func decodedType(ct string) string {
	l := strings.ToLower(ct)
	if !strings.Contains(l, "charset") {
		return ct
	}
	for _, kind := range []string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(l, kind) {
			return ct
		}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
	}
	return mt + "; charset=utf-8"
}

func classifyErr(u urlnorm.URL, err error, proxied bool) (*Result, time.Duration, error) {
	if err == nil {
		return nil, -1, &Error{URL: u, Reason: ReasonNetwork, Err: errors.New("no response")}
	}
	if proxied && u.Scheme() == "https" {
		if status := tunnelRefused(err); status != 0 {
			return nil, -1, &Error{URL: u, Reason: ReasonProxy, Status: status, Err: err}
		}
	}
	switch {
	case errors.Is(err, errTooManyRedirects), errors.Is(err, errRedirectLoop):
		return nil, -1, &Error{URL: u, Reason: ReasonRedirect, Err: err}
	case errors.Is(err, errBadRedirect):
		return nil, -1, &Error{URL: u, Reason: ReasonBadURL, Err: err}
	case errors.Is(err, errRobotsRedirect):
		return nil, -1, &Error{URL: u, Reason: ReasonRobots, Err: err}
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum), errors.As(err, new(flate.CorruptInputError)):
		return nil, -1, &Error{URL: u, Reason: ReasonEncoding, Err: err}
	case strings.Contains(err.Error(), "failed to parse Location header"):
		return nil, -1, &Error{URL: u, Reason: ReasonBadURL, Err: err} // net/http's words
	case strings.Contains(err.Error(), "server response headers exceeded"):
		return nil, -1, &Error{URL: u, Reason: ReasonTooLarge, Err: err} // net/http's words
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return nil, 0, &Error{URL: u, Reason: ReasonTimeout, Err: err}
	}
	if dns := (*net.DNSError)(nil); errors.As(err, &dns) && dns.IsNotFound {
		// The name server answered that the host does not exist: asking
		// again at once gets the same answer (nor is it Transient).
		return nil, -1, &Error{URL: u, Reason: ReasonNetwork, Err: err}
	}
	return nil, 0, &Error{URL: u, Reason: ReasonNetwork, Err: err}
}

// tunnelRefused returns the status with which a proxy refused to open a
// tunnel (CONNECT) to an https URL, or 0 when err is something else.
// net/http reports that refusal as an error whose text is the status's
// text alone ("Method Not Allowed"), not as a network error: the proxy
// answered, so the network works, and fetching the page again through
// the same proxy would be refused again.
func tunnelRefused(err error) int {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) { // a *url.Error is a net.Error: look inside
		err, msg = ue.Err, ue.Err.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return 0
	}
	for code := 400; code < 600; code++ {
		// The error may have passed through a layer that kept its text
		// but not the error (colly): "Get "URL": Method Not Allowed".
		if t := http.StatusText(code); t != "" && (msg == t || strings.HasSuffix(msg, "\": "+t)) {
			return code
		}
	}
	return 0
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Transient reports whether a fetch error may go away if the page is
// fetched again later: no answer at all (see Unreachable), a 5xx or 429
// answer, or a Retry-After longer than allowed. A network error that is an
// answer of a kind (a host name that does not exist, a certificate that
// does not verify, a proxy that refuses the tunnel, a malformed response)
// is final.
func Transient(err error) bool {
	var fe *Error
	if !errors.As(err, &fe) {
		return false
	}
	switch fe.Reason {
	case ReasonTimeout, ReasonRetryAfter:
		return true
	case ReasonNetwork:
		return noAnswer(fe.Err)
	case ReasonStatus:
		return fe.Status >= 500 || fe.Status == http.StatusTooManyRequests
	}
	return false
}

// Unreachable reports whether a fetch error says that no answer came
// from the server at all (a timeout, a connection refused, reset or with
// no route, a name server that did not answer): what a crawl sees when the
// network, rather than a site, is down.
func Unreachable(err error) bool {
	var fe *Error
	if !errors.As(err, &fe) {
		return false
	}
	return !fe.Answered && (fe.Reason == ReasonTimeout || fe.Reason == ReasonNetwork && noAnswer(fe.Err))
}

// noAnswer reports whether a network error is a failure to get any answer:
// the connection could not be made or broke before the response, or name
// resolution did not answer. "No such host" is an answer.
func noAnswer(err error) bool {
	if err == nil {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return !dns.IsNotFound
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.ENETUNREACH,
		syscall.EHOSTUNREACH, syscall.ENETDOWN, syscall.EHOSTDOWN, syscall.ETIMEDOUT, syscall.EPIPE, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

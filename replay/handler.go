package replay

import (
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/urlnorm"
)

// route is one prepared response: a stored page at its own URL or at a
// directory alias, or a directory redirect (page nil).
type route struct {
	page   *Page
	status int
	header http.Header // complete and read-only; every value has cap == len
	body   []byte      // of a redirect; a page's is page.body
}

// Index documents tried for directory URLs, in order of preference.
var indexDocuments = []string{"index.html", "index.htm"}

// buildRoutes prepares every response the handler can give, keyed by
// normalized URL string, so that serving is one map lookup:
//
//   - each page at its URL;
//   - "/dir/index.html" (then "index.htm") answers with "/dir/" when only
//     "/dir/" is stored;
//   - "/dir/" answers with "/dir/index.html" (else "/dir/index.htm") when
//     only that is stored;
//   - "/dir" redirects (301) to "/dir/" when "/dir/" is served by the
//     rules above and "/dir" itself is not stored.
func buildRoutes(a *Archive) map[string]*route {
	routes := make(map[string]*route, len(a.pages)*2)
	for _, p := range a.pages {
		routes[p.URL.String()] = pageRoute(p)
	}
	addAlias := func(p *Page, path string) {
		key := withPath(p.URL, path)
		if _, ok := routes[key]; !ok {
			routes[key] = routes[p.URL.String()]
		}
	}
	for _, p := range a.pages {
		if path := p.URL.Path(); strings.HasSuffix(path, "/") {
			for _, doc := range indexDocuments {
				addAlias(p, path+doc)
			}
		}
	}
	for _, doc := range indexDocuments {
		for _, p := range a.pages {
			if path := p.URL.Path(); strings.HasSuffix(path, "/"+doc) {
				addAlias(p, strings.TrimSuffix(path, doc))
			}
		}
	}
	var dirs []string
	for key := range routes {
		u, err := urlnorm.Parse(key)
		if err != nil {
			continue
		}
		if path := u.Path(); len(path) > 1 && strings.HasSuffix(path, "/") {
			dirs = append(dirs, key)
		}
	}
	for _, key := range dirs {
		u, _ := urlnorm.Parse(key)
		from := withPath(u, strings.TrimSuffix(u.Path(), "/"))
		if _, ok := routes[from]; !ok {
			routes[from] = redirectRoute(key)
		}
	}
	return routes
}

// withPath returns u's string with its path replaced by path.
func withPath(u urlnorm.URL, path string) string {
	s := u.Origin() + path
	if q := u.Query(); q != "" {
		s += "?" + q
	}
	return s
}

// pageRoute prepares the response for a stored page.
func pageRoute(p *Page) *route {
	h := make(http.Header, len(p.Header)+2)
	for k, v := range p.Header {
		h[k] = v[:len(v):len(v)]
	}
	if len(h["Content-Type"]) == 0 {
		h["Content-Type"] = []string{"text/html"}
	}
	h["Content-Length"] = []string{strconv.Itoa(p.Size())}
	if loc := p.Header.Get("Location"); loc != "" {
		if u, err := p.URL.Resolve(loc); err == nil {
			h["Location"] = []string{u.String()}
		}
	}
	return &route{page: p, status: p.Status, header: h}
}

// redirectRoute prepares a 301 to target.
func redirectRoute(target string) *route {
	body := []byte("<html><head><title>301 Moved Permanently</title></head><body><a href=\"" +
		html.EscapeString(target) + "\">Moved Permanently</a>.</body></html>\n")
	return &route{
		status: http.StatusMovedPermanently,
		header: http.Header{
			"Location":       {target},
			"Content-Type":   {"text/html; charset=utf-8"},
			"Content-Length": {strconv.Itoa(len(body))},
		},
		body: body,
	}
}

// Resolve returns the stored page the handler answers u with, following
// the directory rules (index documents) but not redirects. For a redirect
// it returns nil and false.
func (a *Archive) Resolve(u urlnorm.URL) (*Page, bool) {
	rt, ok := a.routes[u.String()]
	if !ok || rt.page == nil {
		return nil, false
	}
	return rt.page, true
}

// Answer tells how the handler answers u, following no redirect: with a
// stored page p (whose Status is 200, or 301 or 302 for a stored
// redirect), or, for a directory named without its final slash, with a
// redirect of its own to redirect (p nil). ok is false when u is answered
// 404.
func (a *Archive) Answer(u urlnorm.URL) (p *Page, redirect urlnorm.URL, ok bool) {
	rt, ok := a.routes[u.String()]
	if !ok {
		return nil, urlnorm.URL{}, false
	}
	if rt.page != nil {
		return rt.page, urlnorm.URL{}, true
	}
	redirect, _ = urlnorm.Parse(rt.header.Get("Location"))
	return nil, redirect, true
}

// Follow is Resolve after the redirects the handler makes itself (a
// directory named without its final slash): the stored page a client that
// follows redirects ends at.
func (a *Archive) Follow(u urlnorm.URL) (*Page, bool) {
	for range 5 {
		rt, ok := a.routes[u.String()]
		if !ok {
			return nil, false
		}
		if rt.page != nil {
			return rt.page, true
		}
		next, err := urlnorm.Parse(rt.header.Get("Location"))
		if err != nil {
			return nil, false
		}
		u = next
	}
	return nil, false
}

// Errors answered by the handler, as plain text.
var (
	notFoundBody   = []byte("404 not found: the URL is not in the replayed collection\n")
	connectBody    = []byte("405 method not allowed: CONNECT (https tunnelling) is not supported; the replayed collection holds only http:// URLs\n")
	methodBody     = []byte("405 method not allowed: only GET and HEAD are served\n")
	textPlain      = []string{"text/plain; charset=utf-8"}
	noSniff        = []string{"nosniff"}
	allowGetHead   = []string{"GET, HEAD"}
	notFoundLength = []string{strconv.Itoa(len(notFoundBody))}
	connectLength  = []string{strconv.Itoa(len(connectBody))}
	methodLength   = []string{strconv.Itoa(len(methodBody))}
)

// handler serves an archive; see NewHandler.
type handler struct {
	routes map[string]*route
}

// NewHandler returns a handler that serves the archive as a live web. It
// accepts forward-proxy requests (an absolute URL in the request line) and
// plain requests routed by their Host header, so that it works both as an
// HTTP proxy and behind a dialer that sends every host to it. Each URL is
// answered with its stored status, headers (Content-Length recomputed) and
// body; URLs not stored get 404, including /robots.txt; directories behave
// as on a usual web server (see Archive.Resolve); HEAD is answered without
// a body; CONNECT and other methods get 405. The handler does not log.
func NewHandler(a *Archive) http.Handler {
	return &handler{routes: a.routes}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodConnect:
		writeError(w, r, http.StatusMethodNotAllowed, connectBody, connectLength)
		return
	default:
		writeError(w, r, http.StatusMethodNotAllowed, methodBody, methodLength)
		return
	}
	rt := h.find(r)
	if rt == nil {
		writeError(w, r, http.StatusNotFound, notFoundBody, notFoundLength)
		return
	}
	hdr := w.Header()
	for k, v := range rt.header {
		hdr[k] = v
	}
	w.WriteHeader(rt.status)
	switch {
	case r.Method == http.MethodHead:
	case rt.page != nil:
		rt.page.body.writeTo(w) //nolint:errcheck // the client went away; nothing to do
	default:
		w.Write(rt.body) //nolint:errcheck // the client went away; nothing to do
	}
}

// find returns the route for r, or nil. The common case (a URL already in
// normal form) costs one map lookup without allocation.
func (h *handler) find(r *http.Request) *route {
	var buf [512]byte
	key := buf[:0]
	if r.URL.IsAbs() {
		if uri := r.RequestURI; strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
			key = append(key, uri...)
		} else {
			key = append(key, r.URL.String()...)
		}
	} else {
		key = append(key, "http://"...)
		key = append(key, r.Host...)
		uri := r.RequestURI
		if uri == "" || uri[0] != '/' {
			uri = r.URL.RequestURI()
		}
		key = append(key, uri...)
	}
	if rt, ok := h.routes[string(key)]; ok {
		return rt
	}
	u, err := urlnorm.Parse(string(key))
	if err != nil {
		return nil
	}
	return h.routes[u.String()]
}

func writeError(w http.ResponseWriter, r *http.Request, status int, body []byte, length []string) {
	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr["X-Content-Type-Options"] = noSniff
	hdr["Content-Length"] = length
	if status == http.StatusMethodNotAllowed {
		hdr["Allow"] = allowGetHead
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body) //nolint:errcheck // the client went away; nothing to do
	}
}

package fetch

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Exchange is one HTTP request and its response as they went over the
// wire (Config.KeepRaw): a fetch that followed redirects has one per hop.
type Exchange struct {
	// URL is the request's target.
	URL string
	// Date is when the request was sent.
	Date time.Time
	// Request is the request line and headers scent sent (origin form,
	// with the Host header).
	Request []byte
	// Response is the status line, the headers and the body as received,
	// before any charset conversion. Transfer codings (chunked) are
	// removed, and Content-Length is kept only when the server sent it.
	Response []byte
	// Truncated is set when the body was not read to its end (a refused
	// content type, a body over the size limit, a broken connection);
	// Response then holds the part that was read.
	Truncated bool

	// Request and Response compressed (see Deflated), when deflated.
	zRequest, zResponse []byte
	deflated            bool
}

// Body returns the response's body: what follows the header of Response.
func (e *Exchange) Body() []byte {
	if i := bytes.Index(e.Response, []byte("\r\n\r\n")); i >= 0 {
		return e.Response[i+4:]
	}
	return nil
}

// capture collects one exchange while colly reads its response.
type capture struct {
	mu   sync.Mutex
	ex   Exchange
	resp bytes.Buffer // the response's head, then its body as read
	done bool         // the body was read to its end
}

// exchange returns the exchange captured. The response is the capture's
// own buffer, not a copy: a capture gives its exchange once, when the
// fetch is over.
func (c *capture) exchange() *Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.ex
	e.Response = c.resp.Bytes()
	e.Truncated = !c.done
	e.zRequest, e.zResponse, e.deflated = deflateRaw(e.Request), deflateRaw(e.Response), true
	return &e
}

// startCapture records req (as sent) and returns the capture to fill
// with its response.
func startCapture(req *http.Request) *capture {
	c := &capture{ex: Exchange{URL: req.URL.String(), Date: time.Now().UTC()}}
	var b bytes.Buffer
	b.WriteString(req.Method + " " + req.URL.RequestURI() + " HTTP/1.1\r\n")
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b.WriteString("Host: " + host + "\r\n")
	_ = req.Header.Write(&b)
	b.WriteString("\r\n")
	c.ex.Request = b.Bytes()
	return c
}

// wrap records resp's status line and headers and tees its body, up to
// limit bytes, into the capture. A body whose length the server gave is
// read into room made for it at once, not into a buffer that doubles as
// it fills.
func (c *capture) wrap(resp *http.Response, limit int64) {
	b := &c.resp
	proto := resp.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	status := resp.Status
	if status == "" {
		status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	b.WriteString(proto + " " + status + "\r\n")
	_ = resp.Header.Write(b)
	b.WriteString("\r\n")
	if n := resp.ContentLength; n > 0 {
		b.Grow(int(min(n, limit)))
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		c.done = true
		return
	}
	resp.Body = &teeBody{rc: resp.Body, c: c, left: limit}
}

type teeBody struct {
	rc      io.ReadCloser
	c       *capture
	left    int64
	dropped bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.c.mu.Lock()
	if int64(n) > t.left {
		t.dropped = true
	}
	if k := min(int64(n), t.left); k > 0 {
		t.c.resp.Write(p[:k])
		t.left -= k
	}
	if err == io.EOF {
		t.c.done = !t.dropped
	}
	t.c.mu.Unlock()
	return n, err
}

func (t *teeBody) Close() error { return t.rc.Close() }

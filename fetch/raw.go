package fetch

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/scent-crawler/scent/internal/deflate"
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
	// The fetcher keeps a response of over a megabyte compressed only,
	// as it reads it: Response is then nil, and RawResponse and
	// ResponseSize give it and its length.
	Response []byte
	// Truncated is set when the body was not read to its end (a refused
	// content type, a body over the size limit, a broken connection);
	// Response then holds the part that was read.
	Truncated bool

	// Request and Response compressed (see Deflated), when deflated.
	zRequest, zResponse []byte
	deflated            bool
	// size is the length of Response when the fetcher kept it compressed
	// only (streamed): Response is then nil and RawResponse inflates it.
	size     int
	streamed bool
}

// RawResponse returns Response, decompressed first when the fetcher kept
// it compressed only: a response of more than streamAt bytes is
// compressed as it is read, so that a large page is not held twice.
func (e *Exchange) RawResponse() ([]byte, error) {
	if !e.streamed {
		return e.Response, nil
	}
	return InflateRaw(e.zResponse)
}

// ResponseSize returns the length of the response as received.
func (e *Exchange) ResponseSize() int {
	if e.streamed {
		return e.size
	}
	return len(e.Response)
}

// Body returns the response's body: what follows the header of the
// response (RawResponse).
func (e *Exchange) Body() []byte {
	r, err := e.RawResponse()
	if err != nil {
		return nil
	}
	if i := bytes.Index(r, []byte("\r\n\r\n")); i >= 0 {
		return r[i+4:]
	}
	return nil
}

// streamAt is the length past which a capture compresses the response as
// it is read instead of holding it whole: a writer's tables (about a
// megabyte at rawLevel) are then less than the response.
const streamAt = 1 << 20

// capture collects one exchange while colly reads its response.
type capture struct {
	mu   sync.Mutex
	ex   Exchange
	resp bytes.Buffer // the response's head, then its body as read
	done bool         // the body was read to its end
	// Past streamAt bytes, the response so far and all that follows go
	// through zw into z, and resp is dropped; n counts the bytes.
	zw *deflate.Writer
	z  bytes.Buffer
	n  int
}

// exchange returns the exchange captured. The response is the capture's
// own buffer, not a copy: a capture gives its exchange once, when the
// fetch is over.
func (c *capture) exchange() *Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.ex
	e.Truncated = !c.done
	e.zRequest, e.deflated = deflateRaw(e.Request), true
	if c.zw != nil {
		_ = c.zw.Close() // into a bytes.Buffer: no error
		rawWriters.Put(c.zw)
		c.zw = nil
		e.zResponse, e.size, e.streamed = c.z.Bytes(), c.n, true
		return &e
	}
	e.Response = c.resp.Bytes()
	e.zResponse = deflateRaw(e.Response)
	return &e
}

// write adds p to the response captured; c.mu is held.
func (c *capture) write(p []byte) {
	if c.zw == nil && c.resp.Len()+len(p) > streamAt {
		c.zw = rawWriters.Get(&c.z)
		_, _ = c.zw.Write(c.resp.Bytes())
		c.n = c.resp.Len()
		c.resp = bytes.Buffer{}
	}
	if c.zw == nil {
		c.resp.Write(p)
		return
	}
	_, _ = c.zw.Write(p)
	c.n += len(p)
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
// it fills, unless it is long enough to be compressed as it is read.
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
	if n := resp.ContentLength; n > 0 && int64(b.Len())+n <= streamAt {
		b.Grow(int(n))
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
		t.c.write(p[:k])
		t.left -= k
	}
	if err == io.EOF {
		t.c.done = !t.dropped
	}
	t.c.mu.Unlock()
	return n, err
}

func (t *teeBody) Close() error { return t.rc.Close() }

package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// shutdownGrace is how long Serve waits for requests in flight after its
// context is cancelled before closing the remaining connections.
const shutdownGrace = 5 * time.Second

// Server is a running replay server; see Serve.
type Server struct {
	addr string
	srv  *http.Server
	done chan struct{}
	err  error // set before done is closed
}

// Serve listens on addr (for example "127.0.0.1:0") and serves the archive
// with NewHandler until ctx is cancelled, then shuts down: requests in
// flight get up to five seconds to finish. The returned Server reports the
// bound address.
func Serve(ctx context.Context, a *Archive, addr string) (*Server, error) {
	return ServeWith(ctx, a, addr, ServeOptions{})
}

// ServeOptions change how ServeWith answers; the zero value answers as
// Serve does.
type ServeOptions struct {
	// Delay is how long every response waits before it is written, as a
	// distant or slow server's would; 0 answers at once.
	Delay time.Duration
	// Log, when not nil, gets one line per request answered:
	// "METHOD URL STATUS USER-AGENT", the URL as requested (absolute
	// through the proxy), the User-Agent quoted. Lines are written whole,
	// one at a time.
	Log io.Writer
}

// ServeWith is Serve with options.
func ServeWith(ctx context.Context, a *Archive, addr string, o ServeOptions) (*Server, error) {
	if o.Delay < 0 {
		return nil, fmt.Errorf("serve archive: negative delay %s", o.Delay)
	}
	h := NewHandler(a)
	if o.Delay > 0 || o.Log != nil {
		h = &slowLogged{next: h, opts: o}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve archive: listen %s: %w", addr, err)
	}
	s := &Server{
		addr: ln.Addr().String(),
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       60 * time.Second,
		},
		done: make(chan struct{}),
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = fmt.Errorf("serve archive on %s: %w", s.addr, err)
		}
	}()
	go func() {
		defer close(s.done)
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer cancel()
			if err := s.srv.Shutdown(sctx); err != nil {
				s.srv.Close() //nolint:errcheck // already shutting down; Close only ends connections
			}
		case <-served:
		}
		<-served
	}()
	return s, nil
}

// Addr returns the address the server listens on, such as "127.0.0.1:41234".
func (s *Server) Addr() string { return s.addr }

// ProxyURL returns the server's URL for use as an HTTP proxy, for example
// as http.Transport.Proxy = http.ProxyURL(s.ProxyURL()).
func (s *Server) ProxyURL() *url.URL { return &url.URL{Scheme: "http", Host: s.addr} }

// DialContext connects to the server whatever address is asked for; use it
// as http.Transport.DialContext to send every host to the server, which
// then routes by the Host header.
func (s *Server) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, s.addr)
	if err != nil {
		return nil, fmt.Errorf("dial replay server %s: %w", s.addr, err)
	}
	return conn, nil
}

// Wait blocks until the server has stopped, after ctx was cancelled or
// Close was called, and returns the error that stopped it, nil after a
// clean shutdown.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Close stops the server at once, closing all connections, and waits for
// it to stop.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	if err != nil {
		return fmt.Errorf("close replay server: %w", err)
	}
	return s.err
}

// slowLogged answers after ServeOptions.Delay and logs every request.
type slowLogged struct {
	next http.Handler
	opts ServeOptions
	mu   sync.Mutex // orders the log's lines
}

func (h *slowLogged) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.opts.Delay > 0 {
		t := time.NewTimer(h.opts.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	h.next.ServeHTTP(sw, r)
	if h.opts.Log != nil {
		h.mu.Lock()
		fmt.Fprintf(h.opts.Log, "%s %s %d %q\n", r.Method, r.URL, sw.status, r.UserAgent())
		h.mu.Unlock()
	}
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

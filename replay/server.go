package replay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
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
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve archive: listen %s: %w", addr, err)
	}
	s := &Server{
		addr: ln.Addr().String(),
		srv: &http.Server{
			Handler:           NewHandler(a),
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

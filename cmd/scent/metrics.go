package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/metrics"
)

// listenMetrics opens the listener of --metrics-addr addr (nil when addr
// is empty) when the command starts, so that an address that cannot be
// served (not an address, a port in use) is refused before any model is
// trained or any page fetched.
func listenMetrics(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	return ln, nil
}

// serveMetrics serves Prometheus metrics of the crawl on ln (nothing when
// ln is nil), which it then owns, and wraps store to feed them; the
// returned function stops the server.
func serveMetrics(ln net.Listener, store crawler.Store, log io.Writer) (crawler.Store, func()) {
	if ln == nil {
		return store, func() {}
	}
	m := metrics.New()
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(log, "metrics server: %v\n", err)
		}
	}()
	fmt.Fprintf(log, "metrics at http://%s/metrics\n", ln.Addr())
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
	return &metrics.Store{Store: store, M: m}, stop
}

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

// serveMetrics serves Prometheus metrics of the crawl at addr (nothing
// when addr is empty) and wraps store to feed them; the returned function
// stops the server.
func serveMetrics(addr string, store crawler.Store, log io.Writer) (crawler.Store, func(), error) {
	if addr == "" {
		return store, func() {}, nil
	}
	m := metrics.New()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics: %w", err)
	}
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
	return &metrics.Store{Store: store, M: m}, stop, nil
}

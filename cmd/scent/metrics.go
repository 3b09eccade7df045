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

// metricsServer serves the Prometheus metrics of a crawl (--metrics-addr).
type metricsServer struct {
	m    *metrics.Metrics
	srv  *http.Server
	done chan struct{}
}

// startMetrics serves the crawl's metrics at addr (nil when addr is
// empty) from the moment the command starts: an address that cannot be
// served (not an address, a port in use) is refused before any model is
// trained or any page fetched, and a scrape while the model trains is
// answered, every count still zero.
func startMetrics(addr string, log io.Writer) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	s := &metricsServer{m: metrics.New(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.m.Handler())
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(log, "metrics server: %v\n", err)
		}
	}()
	fmt.Fprintf(log, "metrics at http://%s/metrics\n", ln.Addr())
	return s, nil
}

// wrap returns store feeding the metrics (store itself when s is nil).
func (s *metricsServer) wrap(store crawler.Store) crawler.Store {
	if s == nil {
		return store
	}
	return &metrics.Store{Store: store, M: s.m}
}

// Close stops the server (nothing when s is nil).
func (s *metricsServer) Close() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	<-s.done
}

package fetch

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// crawlDelay returns the Crawl-delay d asked by origin's robots.txt as
// applied: capped by MaxCrawlDelay (the cut is logged), or 0 when
// Crawl-delay is ignored.
func (f *Fetcher) crawlDelay(origin string, d time.Duration) time.Duration {
	if d <= 0 || f.cfg.MaxCrawlDelay < 0 {
		return 0
	}
	if d > f.cfg.MaxCrawlDelay {
		f.cfg.Logf("robots.txt of %s asks for Crawl-delay %s: capped at %s", origin, d, f.cfg.MaxCrawlDelay)
		return f.cfg.MaxCrawlDelay
	}
	return d
}

// ipGate applies per-IP politeness: a hostGate keyed by the address a
// host resolves to. Addresses are cached for ipTTL.
type ipGate struct {
	gate   *hostGate
	lookup func(ctx context.Context, host string) ([]net.IPAddr, error)
	mu     sync.Mutex
	addr   map[string]ipEntry
}

type ipEntry struct {
	ip      string
	expires time.Time
}

const ipTTL = 10 * time.Minute

func newIPGate(cfg Config) *ipGate {
	if cfg.IPDelay <= 0 && cfg.IPParallelism <= 0 || cfg.Proxy != "" {
		return nil
	}
	return &ipGate{gate: newHostGate(cfg.IPDelay, cfg.IPParallelism), addr: make(map[string]ipEntry),
		lookup: net.DefaultResolver.LookupIPAddr}
}

// acquire waits for a slot of u's address; a host that does not resolve
// counts as its own address.
func (g *ipGate) acquire(ctx context.Context, u urlnorm.URL) (func(), error) {
	if g == nil {
		return func() {}, nil
	}
	return g.gate.acquire(ctx, g.resolve(ctx, u.Host()))
}

// pace waits for the address of host (a URL's host, port included) to
// allow a request by its delay, and counts one starting now
// (hostGate.pace).
func (g *ipGate) pace(ctx context.Context, host string) error {
	if g == nil {
		return nil
	}
	return g.gate.pace(ctx, g.resolve(ctx, host))
}

// holdUntil starts no request to host's address before t.
func (g *ipGate) holdUntil(ctx context.Context, host string, t time.Time) {
	if g != nil {
		g.gate.holdUntil(g.resolve(ctx, host), t)
	}
}

func (g *ipGate) resolve(ctx context.Context, host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	g.mu.Lock()
	e, ok := g.addr[host]
	g.mu.Unlock()
	if ok && time.Now().Before(e.expires) {
		return e.ip
	}
	ip := host
	if addrs, err := g.lookup(ctx, host); err == nil && len(addrs) > 0 {
		ip = addrs[0].IP.String()
	}
	g.mu.Lock()
	if len(g.addr) >= 1<<14 {
		clear(g.addr)
	}
	g.addr[host] = ipEntry{ip: ip, expires: time.Now().Add(ipTTL)}
	g.mu.Unlock()
	return ip
}

package fetch

import (
	"context"
	"sync"
	"time"
)

// hostGate enforces per-host politeness: at most par requests in flight to
// a host and at least delay between the starts of two of them. Idle hosts
// are forgotten, so its size follows the hosts being fetched right now, not
// the crawl.
type hostGate struct {
	delay time.Duration
	par   int
	mu    sync.Mutex
	hosts map[string]*hostState
	// delays are longer delays asked by some hosts (robots.txt
	// Crawl-delay), at most maxDelays of them.
	delays map[string]time.Duration
}

const maxDelays = 1 << 14

type hostState struct {
	busy int
	next time.Time     // earliest start of the next request
	wake chan struct{} // closed when a slot frees
}

func newHostGate(delay time.Duration, par int) *hostGate {
	return &hostGate{delay: delay, par: par, hosts: make(map[string]*hostState), delays: make(map[string]time.Duration)}
}

// acquire waits for a slot for host and returns its release function.
func (g *hostGate) acquire(ctx context.Context, host string) (func(), error) {
	for {
		g.mu.Lock()
		h := g.hosts[host]
		delay := max(g.delay, g.delays[host])
		if h == nil && delay <= 0 && g.par <= 0 {
			g.mu.Unlock()
			return func() {}, nil
		}
		if h == nil {
			if len(g.hosts) >= 1024 {
				g.sweep()
			}
			h = &hostState{wake: make(chan struct{})}
			g.hosts[host] = h
		}
		now := time.Now()
		if g.par <= 0 || h.busy < g.par {
			if wait := h.next.Sub(now); wait <= 0 {
				h.busy++
				h.next = now.Add(delay)
				g.mu.Unlock()
				return func() { g.release(host) }, nil
			} else {
				g.mu.Unlock()
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return nil, ctx.Err()
				case <-t.C:
				}
				continue
			}
		}
		wake := h.wake
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		}
	}
}

func (g *hostGate) release(host string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.hosts[host]
	if h == nil {
		return
	}
	h.busy--
	close(h.wake)
	h.wake = make(chan struct{})
	if h.busy == 0 && time.Now().After(h.next) {
		delete(g.hosts, host)
	}
}

// sweep forgets idle hosts whose delay has passed; g.mu is held.
func (g *hostGate) sweep() {
	now := time.Now()
	for k, h := range g.hosts {
		if h.busy == 0 && now.After(h.next) {
			delete(g.hosts, k)
		}
	}
}

// setDelay makes the least time between two requests to host at least d
// (a robots.txt Crawl-delay); d = 0 forgets it.
func (g *hostGate) setDelay(host string, d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d <= 0 {
		delete(g.delays, host)
		return
	}
	if _, ok := g.delays[host]; !ok && len(g.delays) >= maxDelays {
		clear(g.delays) // set again by the next robots.txt check of each host
	}
	g.delays[host] = d
}

// pace waits until a request to host may start by the delay alone and
// counts one starting now, without taking a parallelism slot: for a
// request made on behalf of others (robots.txt, asked while a page of
// the same host may hold the host's only slot).
func (g *hostGate) pace(ctx context.Context, host string) error {
	for {
		g.mu.Lock()
		delay := max(g.delay, g.delays[host])
		h := g.hosts[host]
		now := time.Now()
		if h == nil || !h.next.After(now) {
			if delay > 0 {
				g.holdLocked(host, now.Add(delay))
			}
			g.mu.Unlock()
			return nil
		}
		wait := h.next.Sub(now)
		g.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// holdUntil starts no request to host before t (a server's Retry-After).
func (g *hostGate) holdUntil(host string, t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holdLocked(host, t)
}

// holdLocked is holdUntil with g.mu held.
func (g *hostGate) holdLocked(host string, t time.Time) {
	h := g.hosts[host]
	if h == nil {
		if len(g.hosts) >= 1024 {
			g.sweep()
		}
		h = &hostState{wake: make(chan struct{})}
		g.hosts[host] = h
	}
	if t.After(h.next) {
		h.next = t
	}
}

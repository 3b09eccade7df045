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
}

type hostState struct {
	busy int
	next time.Time     // earliest start of the next request
	wake chan struct{} // closed when a slot frees
}

func newHostGate(delay time.Duration, par int) *hostGate {
	return &hostGate{delay: delay, par: par, hosts: make(map[string]*hostState)}
}

// acquire waits for a slot for host and returns its release function.
func (g *hostGate) acquire(ctx context.Context, host string) (func(), error) {
	if g.delay <= 0 && g.par <= 0 {
		return func() {}, nil
	}
	for {
		g.mu.Lock()
		h := g.hosts[host]
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
				h.next = now.Add(g.delay)
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

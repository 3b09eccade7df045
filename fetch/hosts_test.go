package fetch

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestHostGate_acquire(t *testing.T) {
	ctx := context.Background()
	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		t.Cleanup(cancel)
		return c
	}

	t.Run("no limits", func(t *testing.T) {
		g := newHostGate(0, 0)
		for range 3 {
			if _, err := g.acquire(short(), "a"); err != nil {
				t.Fatal(err)
			}
		}
		if len(g.hosts) != 0 {
			t.Errorf("an unlimited gate tracks %d hosts", len(g.hosts))
		}
	})

	t.Run("parallelism", func(t *testing.T) {
		g := newHostGate(0, 2)
		r1, err := g.acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		r2, err := g.acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.acquire(short(), "a"); err == nil {
			t.Fatal("a third slot was granted with parallelism 2")
		}
		rb, err := g.acquire(short(), "b")
		if err != nil {
			t.Fatalf("another host is blocked: %v", err)
		}
		rb()
		got := make(chan error, 1)
		go func() {
			r, err := g.acquire(ctx, "a")
			if err == nil {
				r()
			}
			got <- err
		}()
		r1()
		if err := <-got; err != nil {
			t.Fatalf("a freed slot was not granted: %v", err)
		}
		r2()
		g.mu.Lock()
		n := len(g.hosts)
		g.mu.Unlock()
		if n != 0 {
			t.Errorf("%d idle hosts remembered, want 0", n)
		}
	})

	t.Run("delay", func(t *testing.T) {
		g := newHostGate(time.Hour, 0)
		r, err := g.acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		r()
		if _, err := g.acquire(short(), "a"); err == nil {
			t.Fatal("a second start was granted within the delay")
		}
		if len(g.hosts) != 1 {
			t.Errorf("a host within its delay was forgotten")
		}
		r, err = g.acquire(short(), "b")
		if err != nil {
			t.Fatalf("another host is delayed: %v", err)
		}
		r()
	})
}

func TestHostGate_sweep(t *testing.T) {
	// A full table of hosts is swept of the idle ones whose delay has
	// passed when a new host arrives; busy or still-delayed hosts stay.
	g := newHostGate(time.Hour, 0)
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	for i := range 1024 {
		h := &hostState{wake: make(chan struct{}), next: past}
		switch {
		case i < 20:
			h.busy = 1
		case i < 30:
			h.next = future
		}
		g.hosts[fmt.Sprint("h", i)] = h
	}
	r, err := g.acquire(context.Background(), "new")
	if err != nil {
		t.Fatal(err)
	}
	defer r()
	if n := len(g.hosts); n != 31 {
		t.Errorf("%d hosts remembered after the sweep, want 31", n)
	}
	if _, ok := g.hosts["h5"]; !ok {
		t.Error("a busy host was forgotten")
	}
	if _, ok := g.hosts["h25"]; !ok {
		t.Error("a host within its delay was forgotten")
	}
}

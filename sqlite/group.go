package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// group keeps the store's writes in one transaction for a while (group
// commit): each write transaction of the store (Commit, Pop's reads,
// Rescore, SaveLearner, ...) runs inside one transaction that stays open
// and is committed once it is every old, at the first call that ends
// after that or on the group's own timer, whichever comes first. A
// crawl that commits every few fetches (a lockstep round is one batch of
// Workers pages) then writes each hot page of the database (index roots,
// the frontier's and the search index's tails) once per group instead
// of once per call: a 4,000-page focused crawl wrote 2.8 GB to the WAL
// with a transaction per round.
//
// A crash loses the group not yet committed, all of it, and nothing
// else: the database stays at the end of the last group, where every
// write the crawl made is either kept or undone together (URLs leased
// by pops undone with the pages their fetches gave), so a resume serves
// those URLs again, as it does the fetches in flight.
//
// A call that fails undoes the whole group (SQLite cannot undo one call
// of a transaction without the others'), so the store refuses every
// write after it with the error, grouped or not, until the crawl is
// opened again (OpenCrawl reads back what the store keeps in memory of
// it: the pops not written, the next fetch order): the crawl stops, and
// its resume starts from the last group committed.
//
// Reads outside the store's write calls use the store's one connection,
// which the open group holds: they wait for the group's commit, at most
// every.
type group struct {
	mu    sync.Mutex // held by the call running in the group
	every time.Duration
	tx    *sql.Tx // nil between groups
	since time.Time
	err   error // a call failed and the group was undone

	stop, done chan struct{} // the timer goroutine
}

// call is one write call of the store made inside the group's
// transaction; it ends with Commit or Rollback of its cachedTx.
type call struct {
	ended bool
}

// GroupCommits keeps the store's writes in one transaction committed at
// least every d (see group); d = 0 commits the open group and makes
// every write call its own transaction again. A crawl groups its writes
// while it runs (crawler.Grouper).
func (s *Store) GroupCommits(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("group commits: negative interval %v", d)
	}
	g := &s.group
	g.mu.Lock()
	err := g.commitLocked()
	if err == nil {
		err = g.err
	}
	old := g.every
	g.every = d
	g.mu.Unlock()
	switch {
	case old == 0 && d > 0:
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go g.timer(d)
	case old > 0 && d == 0:
		close(g.stop)
		<-g.done
	case old > 0 && d != old:
		close(g.stop)
		<-g.done
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go g.timer(d)
	}
	if err != nil {
		return fmt.Errorf("group commits: %w", err)
	}
	return nil
}

// timer commits a group left open every (when the crawl waits for its
// fetches and makes no call that would commit it).
func (g *group) timer(every time.Duration) {
	defer close(g.done)
	t := time.NewTicker(max(every/2, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			g.mu.Lock()
			if g.tx != nil && time.Since(g.since) >= every {
				_ = g.commitLocked() // kept in g.err
			}
			g.mu.Unlock()
		}
	}
}

// commitLocked commits the open group, if any; g.mu is held.
func (g *group) commitLocked() error {
	if g.tx == nil {
		return nil
	}
	err := g.tx.Commit()
	g.tx = nil
	if err != nil {
		g.err = fmt.Errorf("commit of a group of writes: %w", err)
		return g.err
	}
	return nil
}

// enter begins a call in the group, opening its transaction when none is
// open; the call holds g.mu until it ends. g.mu is held, and the store
// groups its writes (g.every > 0).
func (s *Store) enter(ctx context.Context) (cachedTx, error) {
	g := &s.group
	if g.err != nil {
		g.mu.Unlock()
		return cachedTx{}, g.err
	}
	if g.tx == nil {
		if err := s.stmts.prepareWanted(ctx, s.db); err != nil {
			g.mu.Unlock()
			return cachedTx{}, err
		}
		// The group outlives the call that opens it: database/sql would
		// roll it back when that call's context ends.
		tx, err := s.db.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			g.mu.Unlock()
			return cachedTx{}, err
		}
		g.tx, g.since = tx, time.Now()
	}
	return cachedTx{Tx: g.tx, s: s, call: &call{}}, nil
}

// errGroupUndone is what a write after a failed one in the same group
// gets (wrapped with the failure).
var errGroupUndone = errors.New("an earlier write of the group failed and all of the group was undone")

// leave ends a call in the group: a committed call commits the group
// when it is due, a rolled back one undoes the group.
func (t cachedTx) leave(commit bool) error {
	if t.call.ended {
		return sql.ErrTxDone
	}
	t.call.ended = true
	g := &t.s.group
	defer g.mu.Unlock()
	if commit {
		if time.Since(g.since) < g.every {
			return nil
		}
		return g.commitLocked()
	}
	err := g.tx.Rollback()
	if err != nil && strings.Contains(err.Error(), "no transaction is active") {
		err = nil // SQLite undid it already (a full disk does): nothing more to say
	}
	g.tx = nil
	g.err = fmt.Errorf("%w: %v", errGroupUndone, errors.Join(errors.New("call rolled back"), err))
	return nil
}

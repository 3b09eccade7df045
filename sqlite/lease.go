package sqlite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// ErrBusy means another process is running the crawl.
var ErrBusy = errors.New("crawl is running in another process")

// Lease timing: a running crawl renews its lease every leaseRenew; a
// lease not renewed for leaseTTL is taken over (a lease of a process gone
// from this host is taken over at once).
const (
	leaseTTL   = time.Minute
	leaseRenew = 15 * time.Second
)

// leases is the store's side of crawl leases: who it is and the goroutine
// that renews what it holds.
type leases struct {
	holder string
	host   string
	once   sync.Once
	stop   chan struct{}
	done   chan struct{}
}

func (l *leases) init() {
	if l.holder == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		l.holder = hex.EncodeToString(b[:])
		l.host, _ = os.Hostname()
	}
}

// takeLease makes the store the runner of crawl, inside tx, or fails with
// ErrBusy when a live process holds it.
func (s *Store) takeLease(ctx context.Context, tx cachedTx, crawl int64, name string) error {
	s.lease.init()
	now := time.Now().UTC()
	var holder, host, started, expires string
	var pid int
	err := tx.QueryRowContext(ctx, `SELECT holder, host, pid, started_at, expires_at FROM crawl_leases WHERE crawl_id = ?`, crawl).
		Scan(&holder, &host, &pid, &started, &expires)
	if err == nil && holder != s.lease.holder {
		if leaseLive(host, pid, expires, s.lease.host, now) {
			return fmt.Errorf("%w: crawl %q in %s is being run by process %d on %s (since %s); wait for it to end or stop it, or choose another --crawl name",
				ErrBusy, name, s.path, pid, host, started)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO crawl_leases(crawl_id, holder, host, pid, started_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
		crawl, s.lease.holder, s.lease.host, os.Getpid(), now.Format(timeFormat), now.Add(leaseTTL).Format(timeFormat))
	if err != nil {
		return fmt.Errorf("lease crawl %s: %w", name, err)
	}
	return nil
}

// renewLeases starts, once, the goroutine that keeps the store's leases
// alive until Close.
func (s *Store) renewLeases() {
	s.lease.once.Do(func() {
		s.lease.stop = make(chan struct{})
		s.lease.done = make(chan struct{})
		go func() {
			defer close(s.lease.done)
			t := time.NewTicker(leaseRenew)
			defer t.Stop()
			for {
				select {
				case <-s.lease.stop:
					return
				case <-t.C:
					ctx, cancel := context.WithTimeout(context.Background(), leaseRenew)
					_, _ = s.db.ExecContext(ctx, `UPDATE crawl_leases SET expires_at = ? WHERE holder = ?`,
						time.Now().UTC().Add(leaseTTL).Format(timeFormat), s.lease.holder)
					cancel()
				}
			}
		}()
	})
}

// releaseLeases stops the renewal and gives up the store's leases.
func (s *Store) releaseLeases() {
	if s.lease.stop == nil {
		return
	}
	close(s.lease.stop)
	<-s.lease.done
	s.lease.stop = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.db.ExecContext(ctx, `DELETE FROM crawl_leases WHERE holder = ?`, s.lease.holder)
}

// LeaseCrawl makes this store the one process working on crawl (named
// name) until Close, as OpenCrawl does for a crawl it runs: a revisit of
// the crawl takes it, so that two revisits, or a revisit and the crawl,
// never check or fetch its pages at once. It fails with ErrBusy while
// another live process holds the crawl.
func (s *Store) LeaseCrawl(ctx context.Context, crawl int64, name string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return fmt.Errorf("lease crawl %s: %w", name, err)
	}
	defer tx.Rollback()
	if err := s.takeLease(ctx, tx, crawl, name); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("lease crawl %s: %w", name, err)
	}
	s.renewLeases()
	return nil
}

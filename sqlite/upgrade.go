package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/scent-crawler/scent/internal/owner"
)

// OpenReading opens the existing database at path for reading, as
// OpenReadOnly does, after bringing a schema older than this scent reads
// up to date (Upgrade, told on notice). When the upgrade is refused (a
// crawl of the database is running, or the file cannot be written), the
// error says why.
func OpenReading(ctx context.Context, path string, notice io.Writer) (*Store, error) {
	s, err := OpenReadOnly(ctx, path)
	if !errors.Is(err, ErrOldSchema) {
		if err == nil {
			tellSkippedLog(s, notice)
		}
		return s, err
	}
	from, to, uerr := Upgrade(ctx, path)
	if uerr != nil {
		return nil, fmt.Errorf("%w; upgrading it failed: %w", err, uerr)
	}
	fmt.Fprintf(notice, "upgraded %s from schema version %d to %d, as a crawl with this scent would\n", path, from, to)
	s, err = OpenReadOnly(ctx, path)
	if err == nil {
		tellSkippedLog(s, notice)
	}
	return s, err
}

// tellSkippedLog tells on notice when s was opened without its
// write-ahead log (SkippedLog).
func tellSkippedLog(s *Store, notice io.Writer) {
	if n, ok := s.SkippedLog(); ok {
		fmt.Fprintf(notice, "reading %s as at its last checkpoint: its write-ahead log %s-wal (%d bytes, the commits since: a crawl killed or still running) needs a %s-shm file that cannot be created there; to read them, copy %s and %s-wal to a directory you can write\n",
			s.path, s.path, n, s.path, s.path, s.path)
	}
}

// Upgrade applies to the existing scent database at path the migrations
// it lacks, as opening it for a crawl does, and returns its schema
// versions before and after. It refuses while a live process holds a
// crawl of the database (a crawl lease not expired, of a process that is
// still there): that process may be an older scent, which must not find
// the tables changed under it.
func Upgrade(ctx context.Context, path string) (from, to int, err error) {
	r, err := OpenReadOnly(ctx, path)
	switch {
	case err == nil:
		v, err := schemaVersion(ctx, r.db)
		r.Close()
		return v, v, err // up to date
	case !errors.Is(err, ErrOldSchema):
		return 0, 0, err
	}
	from, busy, err := upgradeState(ctx, path)
	if err != nil {
		return from, from, err
	}
	if busy != "" {
		return from, from, fmt.Errorf("upgrade %s: %w: %s; upgrade it once that crawl has stopped", path, ErrBusy, busy)
	}
	s, err := Open(ctx, path)
	if err != nil {
		return from, from, err
	}
	to, err = schemaVersion(ctx, s.db)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return from, to, err
}

// schemaVersion reads the schema version of db (PRAGMA user_version).
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// upgradeState reads, in one read-only open, the schema version of the
// database at path and describes a live crawl lease of it ("" when there
// is none).
func upgradeState(ctx context.Context, path string) (version int, busy string, err error) {
	db, _, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	if version, err = schemaVersion(ctx, db); err != nil {
		return 0, "", err
	}
	if version < leasesSince {
		return version, "", nil // a schema from before crawl leases
	}
	rows, err := db.QueryContext(ctx, `SELECT c.name, l.host, l.pid, l.started_at, l.expires_at FROM crawl_leases l JOIN crawls c ON c.id = l.crawl_id`)
	if err != nil {
		return version, "", fmt.Errorf("read crawl leases: %w", err)
	}
	defer rows.Close()
	me, _ := os.Hostname()
	now := time.Now().UTC()
	for rows.Next() {
		var name, host, started, expires string
		var pid int
		if err := rows.Scan(&name, &host, &pid, &started, &expires); err != nil {
			return version, "", fmt.Errorf("read crawl leases: %w", err)
		}
		if leaseLive(host, pid, expires, me, now) {
			return version, fmt.Sprintf("crawl %q is being run by process %d on %s (since %s)", name, pid, host, started), nil
		}
	}
	return version, "", rows.Err()
}

// leasesSince is the schema version that added crawl leases
// (migrations/0009_lease.sql).
const leasesSince = 9

// leaseLive reports whether a crawl lease held by process pid on host,
// expiring at expires, is live at now, seen from host me: not expired,
// and not of a process gone from this host (killed without closing its
// store).
func leaseLive(host string, pid int, expires, me string, now time.Time) bool {
	exp, _ := time.Parse(timeFormat, expires)
	return now.Before(exp) && !(host == me && !owner.Alive(pid))
}

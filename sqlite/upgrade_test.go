package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUpgrade: a database of the schema before the last is brought up to
// date, and then reads; not while a live process holds one of its
// crawls; a lease expired, or of a process gone from this host, does not
// stop it.
func TestUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old := SchemaVersion() - 1
	db := migrateTo(t, path, old)
	host, _ := os.Hostname()
	lease := func(pid int, expires time.Time) {
		t.Helper()
		if _, err := db.Exec(`INSERT OR REPLACE INTO crawl_leases(crawl_id, holder, host, pid, started_at, expires_at) VALUES (1, 'h', ?, ?, ?, ?)`,
			host, pid, expires.Add(-time.Minute).Format(timeFormat), expires.Format(timeFormat)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'bfs', '[""]', '[]', '{}', '2024-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	lease(os.Getpid(), time.Now().Add(time.Minute)) // this process, alive

	if _, err := OpenReadOnly(ctx, path); !errors.Is(err, ErrOldSchema) {
		t.Fatalf("read-only open of schema %d: %v, want ErrOldSchema", old, err)
	}
	if from, to, err := Upgrade(ctx, path); !errors.Is(err, ErrBusy) || from != old || to != old {
		t.Errorf("upgrade while a crawl runs: %d → %d, %v; want it refused with ErrBusy", from, to, err)
	}
	if v, _, _ := upgradeState(ctx, path); v != old {
		t.Errorf("refused upgrade left schema %d, want %d", v, old)
	}
	for _, gone := range []struct {
		name    string
		pid     int
		expires time.Time
	}{
		{"expired", os.Getpid(), time.Now().Add(-time.Second)},
		{"process gone", 1 << 30, time.Now().Add(time.Minute)},
	} {
		lease(gone.pid, gone.expires)
		if _, busy, err := upgradeState(ctx, path); busy != "" || err != nil {
			t.Errorf("%s lease: live %q, %v; want none", gone.name, busy, err)
		}
	}
	db.Close()
	from, to, err := Upgrade(ctx, path)
	if err != nil || from != old || to != SchemaVersion() {
		t.Fatalf("upgrade: %d → %d, %v; want %d → %d", from, to, err, old, SchemaVersion())
	}
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("read-only open after the upgrade: %v", err)
	}
	if c, err := s.Crawl(ctx, "c"); err != nil || c.ID != 1 {
		t.Errorf("crawl after the upgrade: %+v, %v", c, err)
	}
	s.Close()
	if from, to, err := Upgrade(ctx, path); err != nil || from != to || to != SchemaVersion() {
		t.Errorf("upgrade of an up-to-date database: %d → %d, %v; want nothing done", from, to, err)
	}
}

// TestOpenReading: a database of an older schema opens for reading once
// upgraded, and says so; while a crawl of it runs it is refused, with the
// reason.
func TestOpenReading(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db := migrateTo(t, path, SchemaVersion()-1)
	host, _ := os.Hostname()
	now := time.Now().UTC()
	for _, q := range []string{
		`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'bfs', '[""]', '[]', '{}', '2024-01-01T00:00:00Z')`,
		fmt.Sprintf(`INSERT INTO crawl_leases(crawl_id, holder, host, pid, started_at, expires_at) VALUES (1, 'h', '%s', %d, '%s', '%s')`,
			host, os.Getpid(), now.Format(timeFormat), now.Add(time.Minute).Format(timeFormat)),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var notice strings.Builder
	if _, err := OpenReading(ctx, path, &notice); !errors.Is(err, ErrOldSchema) || !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), `crawl "c" is being run by process`) || notice.Len() > 0 {
		t.Errorf("an older schema while its crawl runs: %v (told %q); want refused, saying why", err, notice.String())
	}
	if _, err := db.Exec(`DELETE FROM crawl_leases`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenReading(ctx, path, &notice)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if want := fmt.Sprintf("upgraded %s from schema version %d to %d", path, SchemaVersion()-1, SchemaVersion()); !strings.Contains(notice.String(), want) {
		t.Errorf("notice %q, want %q", notice.String(), want)
	}
	notice.Reset()
	if s, err := OpenReading(ctx, path, &notice); err != nil || notice.Len() > 0 {
		t.Errorf("an up-to-date database: %v, told %q; want it opened as it is", err, notice.String())
	} else {
		s.Close()
	}
}

// TestUpgrade_beforeLeases: a schema older than crawl leases has none to
// look at and is upgraded all the way.
func TestUpgrade_beforeLeases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v8.db")
	migrateTo(t, path, leasesSince-1).Close()
	if from, to, err := Upgrade(context.Background(), path); err != nil || from != leasesSince-1 || to != SchemaVersion() {
		t.Errorf("upgrade of schema %d: %d → %d, %v", leasesSince-1, from, to, err)
	}
}

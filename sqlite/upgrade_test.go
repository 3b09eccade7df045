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

	"github.com/scent-crawler/scent/crawler"
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

// TestOpenReading_withoutItsLog: where the -shm file a WAL database's
// reader needs cannot be created, the database is read as at its last
// checkpoint, and the reader is told so.
func TestOpenReading_withoutItsLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // the schema checkpointed into the file
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}, SeedStacks: []string{""}}); err != nil {
		t.Fatal(err)
	}
	// A copy of the file and its log, where the -shm file cannot be
	// made (a link to nowhere stands in its way, as a read-only
	// directory would for a user who cannot write it).
	cp := filepath.Join(t.TempDir(), "c.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(b) == 0 {
			t.Fatal("the crawl's commit is not in the write-ahead log")
		}
		if err := os.WriteFile(cp+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "no", "such", "dir"), cp+"-shm"); err != nil {
		t.Fatal(err)
	}
	var notice strings.Builder
	r, err := OpenReading(ctx, cp, &notice)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, ok := r.SkippedLog(); !ok || !strings.Contains(notice.String(), "as at its last checkpoint") || !strings.Contains(notice.String(), fmt.Sprintf("(%d bytes", n)) {
		t.Errorf("skipped log %d %v, told %q", n, ok, notice.String())
	}
	if _, err := r.Crawl(ctx, "c"); err == nil {
		t.Error("the crawl committed after the checkpoint was read without its log")
	}
	// The database itself reads its log: nothing skipped, nothing told.
	notice.Reset()
	r2, err := OpenReading(ctx, path, &notice)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, ok := r2.SkippedLog(); ok || notice.Len() > 0 {
		t.Errorf("the database where its -shm can be made: told %q", notice.String())
	}
	if _, err := r2.Crawl(ctx, "c"); err != nil {
		t.Error(err)
	}
}

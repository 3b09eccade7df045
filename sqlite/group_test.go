package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// pagesSeen counts the pages another connection to the database sees:
// what a process reading the file, or a resume after a crash, finds.
func pagesSeen(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// forgetLeases removes the crawl leases of the database at path.
func forgetLeases(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM crawl_leases`); err != nil {
		t.Fatal(err)
	}
}

// copyDB copies the database with its WAL as a crash would leave them.
func copyDB(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "crashed.db")
	for _, suffix := range []string{"", "-wal"} {
		in, err := os.Open(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(dst + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestStore_GroupCommits_crashLosesTheOpenGroupWhole(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/1"), u("/2"), u("/3")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.GroupCommits(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	es, err := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if err != nil || len(es) != 2 {
		t.Fatal(es, err)
	}
	push := []crawler.Entry{{URL: u("/4"), Depth: 1}}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, push); err != nil {
		t.Fatal(err)
	}
	// The store reads its own group: the pushed URL is popped after the
	// seeds left.
	rest := popAll(t, s, st.ID, "", crawler.FIFO)
	if strings.Join(rest, " ") != "/1 /4" {
		t.Errorf("popped %v in the group, want /1 /4", rest)
	}
	if n := pagesSeen(t, path); n != 0 {
		t.Errorf("another connection sees %d pages of a group not committed, want 0", n)
	}

	// A crash now: the copy of the files resumes at the crawl's start,
	// with every seed waiting again (the pops and the page undone
	// together).
	crashedPath := copyDB(t, path)
	forgetLeases(t, crashedPath) // this process holds the crawl; a crashed one would not
	crashed, st2 := reopen(t, crashedPath, spec)
	if st2.Fetched != 0 {
		t.Errorf("after the crash %d pages are kept, want 0", st2.Fetched)
	}
	if left := popAll(t, crashed, st2.ID, "", crawler.FIFO); strings.Join(left, " ") != "/3 /2 /1" {
		t.Errorf("after the crash the frontier holds %v, want the three seeds", left)
	}

	// Ending the group commits it.
	if err := s.GroupCommits(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n := pagesSeen(t, path); n != 1 {
		t.Errorf("after the group ended another connection sees %d pages, want 1", n)
	}
}

func TestStore_GroupCommits_timerCommitsAnIdleGroup(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/1")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.GroupCommits(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	es, _ := s.Pop(ctx, st.ID, "", crawler.FIFO, 1, 0)
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	// No call follows; the group's timer commits it.
	deadline := time.Now().Add(10 * time.Second)
	for pagesSeen(t, path) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the idle group was not committed within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A read of the store outside its write calls waits for the group
	// and then runs.
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM pages`).Scan(&n); err != nil || n != 1 {
		t.Errorf("read through the store: %d pages, %v; want 1", n, err)
	}
}

func TestStore_GroupCommits_failedCallUndoesTheGroup(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/1"), u("/2")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.GroupCommits(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	es, _ := s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	// A commit to a crawl that does not exist fails (foreign key).
	if err := s.Commit(ctx, st.ID+1, []*crawler.Page{{URL: es[1].URL, FetchedAt: time.Now()}}, nil); err == nil {
		t.Fatal("a commit to no crawl gave no error")
	}
	err = s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[1].URL, FetchedAt: time.Now()}}, nil)
	if !errors.Is(err, errGroupUndone) {
		t.Errorf("a commit after the failed one: %v, want %v", err, errGroupUndone)
	}
	if err := s.GroupCommits(ctx, 0); !errors.Is(err, errGroupUndone) {
		t.Errorf("ending the group: %v, want %v", err, errGroupUndone)
	}
	if n := pagesSeen(t, path); n != 0 {
		t.Errorf("another connection sees %d pages of the undone group, want 0", n)
	}
	// Writes are refused, grouped or not, until the crawl is opened
	// again; then the store writes again (the URLs popped in the undone
	// group wait again).
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[1].URL, FetchedAt: time.Now()}}, nil); !errors.Is(err, errGroupUndone) {
		t.Errorf("a commit after the group ended: %v, want %v", err, errGroupUndone)
	}
	if _, err := s.OpenCrawl(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := s.GroupCommits(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	es, err = s.Pop(ctx, st.ID, "", crawler.FIFO, 2, 0)
	if err != nil || len(es) != 2 {
		t.Fatalf("pop after the undone group: %v, %v; want the two seeds", es, err)
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: es[0].URL, FetchedAt: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.GroupCommits(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if n := pagesSeen(t, path); n != 1 {
		t.Errorf("after a new group: %d pages, want 1", n)
	}
}

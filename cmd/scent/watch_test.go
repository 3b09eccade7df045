package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRevisitWatch_killAndResume runs the scheduler as a real process on a
// fast clock, kills it with SIGKILL, runs it again, and checks from the
// server's hits and the change log that no check was lost (every request
// but those in flight at the kill is recorded) and none made twice (no
// page is checked again before its interval).
func TestRevisitWatch_killAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs it in child processes")
	}
	bin := scentBinary(t)
	const n, workers = 30, 4
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			for i := range n {
				fmt.Fprintf(w, `<a href="/p%d">page %d</a> `, i, i)
			}
			return
		}
		w.Header().Set("ETag", `"`+r.URL.Path+`"`)
		if r.Header.Get("If-None-Match") == `"`+r.URL.Path+`"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprintf(w, "<html><body>the page %s</body></html>", r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "watch.db")
	seeds := writeSeeds(t, dir, "seed "+srv.URL+"/\n")
	if out, err := exec.Command(bin, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--delay", "0", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	mu.Lock()
	crawled := map[string]int{}
	for k, v := range hits {
		crawled[k] = v
	}
	mu.Unlock()

	// A simulated week passes in about three real seconds.
	epoch := time.Now().UTC()
	const scale = 200_000
	until := epoch.Add(6 * 7 * 24 * time.Hour)
	watch := func(extra ...string) *exec.Cmd {
		args := append([]string{"revisit", "--watch", "--db", db, "--delay", "0", "--host-parallelism", "0",
			"--workers", fmt.Sprint(workers), "--capacity", "100000", "--quiet", "--policy", "groups", // fixed intervals: a check repeated early shows
			"--clock-epoch", epoch.Format(time.RFC3339Nano), "--clock-scale", fmt.Sprint(scale)}, extra...)
		return exec.Command(bin, args...)
	}
	checks := func() int {
		d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
		if err != nil {
			return 0
		}
		defer d.Close()
		var c int
		d.QueryRow(`SELECT COUNT(*) FROM change_log`).Scan(&c)
		return c
	}
	cmd := watch()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for checks() < n+5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killedAt := checks()
	if killedAt < n {
		t.Fatalf("killed after %d checks: the scheduler did not get going", killedAt)
	}
	if out, err := watch("--until", until.Format(time.RFC3339)).CombinedOutput(); err != nil {
		t.Fatalf("resumed scheduler: %v\n%s", err, out)
	}

	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(`SELECT url, checked_at FROM change_log ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string][]time.Time{}
	for rows.Next() {
		var u, at string
		rows.Scan(&u, &at)
		ts, _ := time.Parse("2006-01-02T15:04:05.000000000Z", at)
		logged[strings.TrimPrefix(u, srv.URL)] = append(logged[strings.TrimPrefix(u, srv.URL)], ts)
	}
	rows.Close()
	mu.Lock()
	defer mu.Unlock()
	lost := 0
	for path, h := range hits {
		requests := h - crawled[path]
		if requests < len(logged[path]) {
			t.Errorf("%s: %d checks logged for %d requests", path, len(logged[path]), requests)
		}
		lost += requests - len(logged[path])
	}
	if lost > workers {
		t.Errorf("%d requests without a logged check; only the %d in flight at the kill may be", lost, workers)
	}
	for path, ts := range logged {
		// Weekly at first, then every two and four weeks as no change
		// is seen.
		if len(ts) < 2 {
			t.Errorf("%s checked %d times in six simulated weeks", path, len(ts))
		}
		for i := 1; i < len(ts); i++ {
			// Pages start in G1 (weekly) and, as they never change, only
			// slow down; the hour rule moves a check by 12 hours at most.
			if gap := ts[i].Sub(ts[i-1]); gap < 6*24*time.Hour {
				t.Errorf("%s checked twice %v apart (%v, %v)", path, gap, ts[i-1], ts[i])
			}
		}
	}
	t.Logf("killed after %d checks; %d in all; %d requests in flight at the kill", killedAt, checks(), lost)
}

package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// changingSite serves "/" (with an ETag it answers 304 to) linking to
// "/x", whose text setText changes; conditional counts the 304s.
type changingSite struct {
	srv         *httptest.Server
	mu          sync.Mutex
	text        string
	conditional int
}

func newChangingSite(t *testing.T) *changingSite {
	s := &changingSite{text: "the course meets on monday"}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("ETag", `"root"`)
			if r.Header.Get("If-None-Match") == `"root"` {
				s.conditional++
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body>home <a href="/x">x</a></body></html>`)
		case "/x":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><body>%s</body></html>", s.text)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *changingSite) setText(text string) {
	s.mu.Lock()
	s.text = text
	s.mu.Unlock()
}

func (s *changingSite) conditionals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conditional
}

func TestRevisitCmd(t *testing.T) {
	site := newChangingSite(t)
	srv := site.srv
	dir := t.TempDir()
	db := filepath.Join(dir, "scent.db")
	seeds := writeSeeds(t, dir, "seed "+srv.URL+"/\n")
	run := func(args ...string) (string, error) {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		return out.String(), err
	}
	if out, err := run("crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}

	site.setText("the course meets on tuesday at noon")
	out, err := run("revisit", "--db", db, "--delay", "0", "--quiet", "--s", "0.5")
	if err != nil {
		t.Fatalf("revisit: %v\n%s", err, out)
	}
	if want := `revisit "default": 2 pages checked: 1 changed, 0 unchanged, 1 not modified (304), 0 failed; 0 not due`; !strings.Contains(out, want) {
		t.Errorf("revisit printed %q, want %q", out, want)
	}
	if n := site.conditionals(); n != 1 {
		t.Errorf("%d conditional requests answered 304, want 1", n)
	}
	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var versions, replaces, adds int
	var delta, costS float64
	err = d.QueryRow(`SELECT COUNT(*), MAX(replaces), MAX(adds), MAX(delta), MAX(cost_s) FROM page_versions v JOIN pages p ON p.id = v.page_id JOIN urls u ON u.id = p.url_id WHERE u.url = ?`,
		srv.URL+"/x").Scan(&versions, &replaces, &adds, &delta, &costS)
	if err != nil {
		t.Fatal(err)
	}
	// monday → tuesday replaced, "at noon" added.
	if versions != 2 || replaces != 1 || adds != 2 || delta != 3 || costS != 0.5 {
		t.Errorf("/x: %d versions, %d replaces, %d adds, δ_E %v, s %v; want 2, 1, 2, 3, 0.5", versions, replaces, adds, delta, costS)
	}

	out, err = run("revisit", "--db", db, "--delay", "0", "--quiet", "--older-than", "1h")
	if err != nil || !strings.Contains(out, "0 pages checked") || !strings.Contains(out, "2 not due") {
		t.Errorf("revisit --older-than 1h right after a revisit: %v\n%s", err, out)
	}
	var rows, changed int
	if err := d.QueryRow(`SELECT COUNT(*), SUM(changed) FROM change_log`).Scan(&rows, &changed); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || changed != 1 {
		t.Errorf("change log has %d rows, %d changed; want 2, 1", rows, changed)
	}

	if _, err := run("revisit", "--db", filepath.Join(dir, "missing.db")); err == nil {
		t.Error("revisit of a missing database gave no error")
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := run("revisit", "--db", empty); err == nil || !strings.Contains(err.Error(), "not a scent database") {
		t.Errorf("revisit of an empty file: %v", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("revisit of an empty file wrote to it (%v)", err)
	}
	if _, err := run("revisit", "--db", db, "--crawl", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("revisit of an unknown crawl: %v", err)
	}
	if _, err := run("revisit", "--db", db, "--t", "2"); err == nil {
		t.Error("revisit with t = 2 gave no error")
	}
}

// crawledCountingSite crawls a one-page site breadth-first into a new
// database and returns it, with the count of the site's requests from
// then on.
func crawledCountingSite(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	hits := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `<html><body>home <a href="/x">x</a></body></html>`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db := filepath.Join(dir, "scent.db")
	seeds := writeSeeds(t, dir, "seed "+srv.URL+"/\n")
	if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	hits.Store(0)
	return db, hits
}

// TestRevisit_progressEveryChecked: a negative --progress-every is
// refused before any page is checked, with the error alone (no summary
// of 0 pages checked), whether progress lines would be printed or not.
func TestRevisit_progressEveryChecked(t *testing.T) {
	db, hits := crawledCountingSite(t)
	for _, args := range [][]string{
		{"revisit", "--db", db, "--delay", "0", "--progress-every", "-1s"},
		{"revisit", "--db", db, "--delay", "0", "--progress-every", "-1s", "--quiet"},
		{"revisit", "--db", db, "--delay", "0", "--progress-every", "-1s", "--watch"},
	} {
		out, err := runScent(t, args...)
		if err == nil || !strings.Contains(err.Error(), "--progress-every must not be negative, not -1s") {
			t.Errorf("scent %s: error %v, want one about --progress-every", strings.Join(args, " "), err)
		}
		if strings.Contains(out, "checked") {
			t.Errorf("scent %s printed before its error:\n%s", strings.Join(args, " "), out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by revisits whose flags were invalid", n)
	}
}

// TestRevisit_watchCapacityChecked: --watch with a --capacity below one
// check a day is refused before the store is opened, with the error
// alone, not after a summary of 0 pages checked as if the scheduler had
// run; the scheduler's flags without --watch are said to be ignored.
func TestRevisit_watchCapacityChecked(t *testing.T) {
	db, hits := crawledCountingSite(t)
	for _, capacity := range []string{"0", "-5"} {
		args := []string{"revisit", "--db", db, "--delay", "0", "--watch", "--capacity", capacity}
		out, err := runScent(t, args...)
		if err == nil || !strings.Contains(err.Error(), "--capacity must be at least 1 check a day, not "+capacity) {
			t.Errorf("scent %s: error %v, want one about --capacity", strings.Join(args, " "), err)
		}
		if strings.Contains(out, "checked") {
			t.Errorf("scent %s printed before its error:\n%s", strings.Join(args, " "), out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by revisits whose flags were invalid", n)
	}
	// Without --watch the scheduler's flags do nothing, and are said to.
	args := []string{"revisit", "--db", db, "--delay", "0", "--quiet", "--capacity", "50", "--policy", "uniform"}
	out, err := runScent(t, args...)
	if err != nil || !strings.Contains(out, "--capacity, --policy set the scheduler of --watch and are ignored") {
		t.Errorf("scent %s: %v, want the two flags said to be ignored:\n%s", strings.Join(args, " "), err, out)
	}
	if out, err := runScent(t, "revisit", "--db", db, "--delay", "0", "--quiet"); err != nil || strings.Contains(out, "ignored") {
		t.Errorf("revisit without the scheduler's flags: %v\n%s", err, out)
	}
}

// TestRevisit_watchFlagsCheckedWithoutWatch: a value of a scheduler's
// flag that --watch refuses is refused by a single pass too, with the
// same error, before any page is checked: a config file shared by both
// kinds of run is not found wrong only by a --watch run.
func TestRevisit_watchFlagsCheckedWithoutWatch(t *testing.T) {
	db, hits := crawledCountingSite(t)
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"--policy", "foo", `--policy: unknown refresh policy "foo"`},
		{"--groups", "7", "--groups must be 16 or 6, not 7"},
		{"--capacity", "-1", "--capacity must be at least 1 check a day, not -1"},
		{"--hours", "noon", `--hours must be paper or after-changes, not "noon"`},
		{"--until", "garbage", `--until: parsing time "garbage"`},
	} {
		for _, watch := range []bool{false, true} {
			args := []string{"revisit", "--db", db, "--delay", "0", "--quiet", tc.flag, tc.value}
			if watch {
				args = append(args, "--watch")
			}
			out, err := runScent(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("scent %s: error %v, want %q", strings.Join(args, " "), err, tc.want)
			}
			if strings.Contains(out, "checked") {
				t.Errorf("scent %s printed before its error:\n%s", strings.Join(args, " "), out)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made by revisits whose flags were invalid", n)
	}
}

// TestRevisitInterrupted: an interrupted revisit says how to go on with
// the pages it did not check: the same command when its --older-than
// leaves out the pages it checked, else an --older-than longer than it
// ran.
func TestRevisitInterrupted(t *testing.T) {
	err := revisitInterrupted(context.Canceled, 24*time.Hour, 3*time.Minute)
	if !errors.As(err, new(resumable)) || !errors.Is(err, context.Canceled) {
		t.Errorf("--older-than 24h, 3 minutes: %v, want the same command again", err)
	}
	err = revisitInterrupted(context.Canceled, 0, 3*time.Minute+12*time.Second)
	var g goOn
	if !errors.As(err, &g) || !errors.Is(err, context.Canceled) {
		t.Fatalf("no --older-than: %#v, want how to go on", err)
	}
	if want := "this run checked pages for 3m12s: to go on with the others, run it again with --older-than 4m (or more, if you wait)"; g.how != want {
		t.Errorf("how = %q, want %q", g.how, want)
	}
	if g := revisitInterrupted(context.Canceled, 0, 5*time.Second).(goOn); !strings.Contains(g.how, "--older-than 1m ") {
		t.Errorf("5 s: %q", g.how)
	}
}

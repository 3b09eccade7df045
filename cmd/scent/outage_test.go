package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
)

// downSite is a web site of n chained pages (a crawlertest.Chain, each
// page answering after 3 ms) that can go down (its port refuses
// connections) and come back on the same address.
type downSite struct {
	addr string
	n    int
	mu   sync.Mutex
	srv  *http.Server
}

func newDownSite(t *testing.T, n int) *downSite {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &downSite{addr: ln.Addr().String(), n: n}
	s.serve(ln)
	t.Cleanup(s.down)
	return s
}

func (s *downSite) url() string { return "http://" + s.addr }

func (s *downSite) serve(ln net.Listener) {
	srv := &http.Server{Handler: crawlertest.Chain{N: s.n, Delay: 3 * time.Millisecond}.Handler()}
	srv.SetKeepAlivesEnabled(false)
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go srv.Serve(ln)
}

// down closes the listener and every connection: connections are refused.
func (s *downSite) down() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
}

// up listens again on the same address.
func (s *downSite) up(t *testing.T) {
	var ln net.Listener
	var err error
	for i := 0; i < 100; i++ {
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			s.serve(ln)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("listen again on %s: %v", s.addr, err)
}

func outageCrawl(bin, seeds, db string, extra ...string) *exec.Cmd {
	args := append([]string{"crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--max-pages", "0",
		"--delay", "0", "--host-parallelism", "0", "--workers", "4", "--quiet",
		// Short groups of writes, so the pages committed show soon and
		// the tests' outages land where they count them.
		"--group-commit", "20ms"}, extra...)
	return exec.Command(bin, args...)
}

// outageSite starts a site of n chained pages that can go down, writes a
// seed file for it in a new folder and crawls it once without
// interruption: want is the pages every crawl of it must end with.
func outageSite(t *testing.T, n int) (bin string, site *downSite, dir, seeds, want string) {
	t.Helper()
	bin = scentBinary(t)
	site = newDownSite(t, n)
	dir = t.TempDir()
	seeds = writeSeeds(t, dir, "seed "+site.url()+"/p0\n")
	refDB := filepath.Join(dir, "ref.db")
	if out, err := outageCrawl(bin, seeds, refDB).CombinedOutput(); err != nil {
		t.Fatalf("reference crawl: %v\n%s", err, out)
	}
	return bin, site, dir, seeds, pathSet(t, refDB, site.url())
}

func pathSet(t *testing.T, db, prefix string) string {
	var out []string
	for _, u := range fetchedSet(t, db) {
		out = append(out, strings.TrimPrefix(u, prefix))
	}
	return strings.Join(out, " ")
}

func failedPages(t *testing.T, db string) int {
	d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.QueryRow(`SELECT COUNT(*) FROM pages WHERE failure != ''`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCrawl_outageMidway: the site's network goes away in the middle of a
// crawl (connections refused) and comes back; the crawl pauses, says so,
// goes on by itself and fetches the same pages as an uninterrupted crawl,
// none recorded as failed. SCENT_TEST_OUTAGE sets how long the network is
// away (default 5s; the case is 30s).
func TestCrawl_outageMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	outage := 5 * time.Second
	if v := os.Getenv("SCENT_TEST_OUTAGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		outage = d
	}
	const n = 300
	bin, site, dir, seeds, want := outageSite(t, n)

	db := filepath.Join(dir, "outage.db")
	cmd := outageCrawl(bin, seeds, db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); countPages(db) < n/3 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	site.down()
	before := countPages(db)
	time.Sleep(outage)
	site.up(t)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("crawl through an outage: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("network down for %s after %d pages\n%s%s", outage, before, stderr.String(), stdout.String())
	if before >= n {
		t.Fatal("the outage began after the crawl ended")
	}
	if got := pathSet(t, db, site.url()); got != want {
		t.Errorf("pages after the outage differ from the uninterrupted crawl's:\n got %d pages\nwant %d", len(strings.Fields(got)), len(strings.Fields(want)))
	}
	if f := failedPages(t, db); f != 0 {
		t.Errorf("%d pages recorded as failed", f)
	}
	if !strings.Contains(stderr.String(), "network unreachable") || !strings.Contains(stderr.String(), "reachable again") {
		t.Errorf("the crawl did not say the network was lost and found:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "frontier empty") {
		t.Errorf("summary: %s", stdout.String())
	}
}

// TestCrawl_outageStopsAndResumes: with the network gone for longer than
// --max-outage the crawl stops with exit status 3 and says why, leaving
// the pages it could not fetch on the frontier; run again with the network
// back, it fetches them.
func TestCrawl_outageStopsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	const n = 120
	bin, site, dir, seeds, want := outageSite(t, n)

	site.down()
	db := filepath.Join(dir, "down.db")
	out, err := outageCrawl(bin, seeds, db, "--max-outage", "2s").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("crawl without network: %v, want exit status 3\n%s", err, out)
	}
	if !strings.Contains(string(out), "stopped: network unreachable") || !strings.Contains(string(out), "scent: network unreachable") {
		t.Errorf("the crawl did not say it stopped for the network:\n%s", out)
	}
	if f := failedPages(t, db); f != 0 {
		t.Errorf("%d pages recorded as failed while the network was down", f)
	}
	site.up(t)
	if out, err := outageCrawl(bin, seeds, db).CombinedOutput(); err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	if got := pathSet(t, db, site.url()); got != want {
		t.Errorf("resumed crawl fetched %d pages, the uninterrupted one %d", len(strings.Fields(got)), len(strings.Fields(want)))
	}
}

// TestCrawl_offlineTrainingSaysNetwork: when no example page answers, the
// crawl says the network is unreachable first (not robots.txt) and exits
// with status 3.
func TestCrawl_offlineTrainingSaysNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fmt.Sprintf("seed %s/\ncourse %s/c1\ncourse %s/c2\nother %s/o1\n", dead, dead, dead, dead))
	out, err := exec.Command(bin, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "x.db"), "--retries", "0").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("offline crawl: %v, want exit status 3\n%s", err, out)
	}
	if !strings.Contains(string(out), "scent: network unreachable: ") {
		t.Errorf("offline crawl does not say the network is unreachable first:\n%s", out)
	}
}

// TestCrawl_twoOutages: the network goes away twice in one crawl. After
// the first outage ends with a successful probe, the second must be
// probed again and end by itself too (not wait for --max-outage).
func TestCrawl_twoOutages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs crawls in child processes")
	}
	const n = 600
	bin, site, dir, seeds, want := outageSite(t, n)

	db := filepath.Join(dir, "twice.db")
	cmd := outageCrawl(bin, seeds, db, "--max-outage", "60s")
	var stdout bytes.Buffer
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, count int) {
		for deadline := time.Now().Add(60 * time.Second); strings.Count(stderr.String(), what) < count && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	for i, at := range []int{n / 4, n / 2} {
		for deadline := time.Now().Add(60 * time.Second); countPages(db) < at && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		// Back as soon as the crawl has seen it gone: its first probe,
		// a page waiting to be fetched again, gets the answer.
		site.down()
		waitFor("network unreachable", i+1)
		site.up(t)
		waitFor("reachable again", i+1)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("crawl through two outages: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the crawl did not go on by itself after the second outage\n%s", stderr.String())
	}
	if c := strings.Count(stderr.String(), "reachable again"); c != 2 {
		t.Errorf("the network was found again %d times, want 2:\n%s", c, stderr.String())
	}
	if got := pathSet(t, db, site.url()); got != want {
		t.Errorf("pages after two outages differ from the uninterrupted crawl's: got %d, want %d", len(strings.Fields(got)), len(strings.Fields(want)))
	}
}

// syncBuffer is a bytes.Buffer that a child process writes while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCrawl_deadHostIsNotAnOutage: links to a host that accepts
// connections and never answers, from a site that answers, do not stop
// the crawl as if the network were down: once the pages of that host
// were all tried, the site still answering (the canary) ends the pause,
// those pages are recorded as failed after their tries and the crawl
// ends with its frontier empty.
func TestCrawl_deadHostIsNotAnOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs a crawl in a child process")
	}
	bin := scentBinary(t)
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			held.Lock()
			conns = append(conns, c) // held open, never answered
			held.Unlock()
		}
	}()
	t.Cleanup(func() {
		hole.Close()
		held.Lock()
		for _, c := range conns {
			c.Close()
		}
		held.Unlock()
	})
	const dead = 8
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			fmt.Fprint(w, "<html><body>a page that answers</body></html>")
			return
		}
		fmt.Fprint(w, `<html><body><a href="/a">a</a> <a href="/b">b</a>`)
		for i := range dead {
			fmt.Fprintf(w, ` <a href="http://%s/n%d">n%d</a>`, hole.Addr(), i, i)
		}
		fmt.Fprint(w, "</body></html>")
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.URL+"/\n")
	db := filepath.Join(dir, "c.db")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--delay", "0",
		"--host-parallelism", "0", "--workers", "8", "--timeout", "300ms", "--retry-later", "1", "--max-outage", "90s", "--quiet")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("crawl: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "frontier empty") {
		t.Errorf("summary: %s", stdout.String())
	}
	if f := failedPages(t, db); f != dead {
		t.Errorf("%d pages recorded as failed, want the dead host's %d\n%s", f, dead, stderr.String())
	}
	if got := pathSet(t, db, site.URL); !strings.Contains(got, "/a") || !strings.Contains(got, "/b") {
		t.Errorf("pages fetched: %s", got)
	}
	t.Logf("%s", stderr.String())
}

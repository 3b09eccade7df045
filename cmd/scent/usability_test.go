package main

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/internal/collectiontest"
)

// TestCrawl_plainProgress: with stderr not a terminal, a crawl logs plain
// progress lines (no carriage returns), at least the last one.
func TestCrawl_plainProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: 60, Delay: 5 * time.Millisecond})
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	cmd := exec.Command(bin, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "c.db"), "--strategy", "bfs",
		"--delay", "0", "--host-parallelism", "0", "--workers", "2", "--log-every", "50ms")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("crawl: %v\n%s\n%s", err, out, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ pages \d+ \(failed fetches \d+\)`)
	n := 0
	for _, l := range lines {
		if re.MatchString(l) {
			n++
		}
	}
	if n == 0 || strings.Contains(stderr.String(), "\r") {
		t.Errorf("stderr of a crawl without terminal: %d plain progress lines, carriage returns %v:\n%s", n, strings.Contains(stderr.String(), "\r"), stderr.String())
	}
	t.Logf("%d progress lines", n)
}

// TestRevisit_plainProgress: with stderr not a terminal, a revisit (one
// pass, not --watch) logs plain, time-stamped progress lines every
// --progress-every, as a crawl does every --log-every, and --quiet
// silences them.
func TestRevisit_plainProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: 40, Delay: 10 * time.Millisecond})
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	db := filepath.Join(dir, "c.db")
	if out, err := exec.Command(bin, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs",
		"--delay", "0", "--host-parallelism", "0", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	revisit := func(quiet bool) string {
		args := []string{"revisit", "--db", db, "--delay", "0", "--workers", "1", "--progress-every", "50ms"}
		if quiet {
			args = append(args, "--quiet")
		}
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "40 pages checked") {
			t.Fatalf("revisit: %v\n%s\n%s", err, out, stderr.String())
		}
		return stderr.String()
	}
	stderr := revisit(false)
	re := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ checked \d+: changed \d+, unchanged \d+`)
	if n := len(re.FindAllString(stderr, -1)); n < 2 || strings.Contains(stderr, "\r") {
		t.Errorf("stderr of a revisit without terminal: %d plain progress lines, carriage returns %v; want 2 or more, none:\n%s",
			n, strings.Contains(stderr, "\r"), stderr)
	}
	if stderr := revisit(true); stderr != "" {
		t.Errorf("revisit --quiet wrote to stderr:\n%s", stderr)
	}
}

// TestCrawl_noZeroSummaryBeforeError: a crawl that fails before fetching
// anything prints the error only.
func TestCrawl_noZeroSummaryBeforeError(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fewTopicSeeds(srv.URL))
	db := filepath.Join(dir, "c.db")
	if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--strategy", "bfs", "--max-pages", "3", "--delay", "0", "--quiet"); err != nil {
		t.Fatalf("bfs crawl: %v\n%s", err, out)
	}
	out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--strategy", "link", "--delay", "0", "--quiet")
	if err == nil || !strings.Contains(err.Error(), "exists with strategy bfs") {
		t.Fatalf("crawl of an existing name with another strategy: error %v", err)
	}
	if strings.Contains(out, "fetches this run") {
		t.Errorf("a summary was printed before the error:\n%s", out)
	}
}

// TestCrawl_roundFlagsNeedLockstep: --overlap and --speculate shape
// lockstep rounds; given to a crawl that fetches whenever a worker is
// free (scent crawl's default) they are refused, not ignored, and
// accepted with --lockstep.
func TestCrawl_roundFlagsNeedLockstep(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fewTopicSeeds(srv.URL))
	for _, flag := range []string{"--overlap", "--speculate"} {
		_, err := runScent(t, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "free.db"), flag, "--max-pages", "2", "--delay", "0", "--quiet")
		if err == nil || !strings.Contains(err.Error(), "add --lockstep") {
			t.Errorf("crawl %s without --lockstep: error %v, want one that asks for --lockstep", flag, err)
		}
		db := filepath.Join(dir, strings.TrimPrefix(flag, "--")+".db")
		if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, flag, "--lockstep", "--max-pages", "2", "--delay", "0", "--quiet"); err != nil {
			t.Errorf("crawl %s --lockstep: %v\n%s", flag, err, out)
		}
	}
}

// TestReplay_pidFile: a replay started in the background writes its
// process id, a kill of it stops the replay, and the file is removed.
func TestReplay_pidFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	archive := collectiontest.Write(t)
	pidFile := filepath.Join(t.TempDir(), "replay.pid")
	cmd := exec.Command(bin, "replay", archive, "--listen", "127.0.0.1:0", "--pid-file", pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer cmd.Process.Kill()
	var pid int
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(pidFile)
		if err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				break
			}
		}
	}
	if pid != cmd.Process.Pid {
		t.Fatalf("pid file holds %d, the replay is %d", pid, cmd.Process.Pid)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the replay did not stop on SIGTERM")
	}
	if _, err := os.Stat(pidFile); err == nil {
		t.Error("pid file left behind")
	}
}

// TestREADME_offlineOutputs: the README's offline commands write under
// a folder git ignores, and stop the background replay they start.
func TestREADME_offlineOutputs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("\n"+string(ignore)+"\n", "\n/out/\n") {
		t.Fatal(".gitignore does not ignore /out/")
	}
	outArg := regexp.MustCompile(`(?:-o|--db|--out|--pid-file|>)\s+(\S+)`)
	sc := bufio.NewScanner(bytes.NewReader(readme))
	var replay, kill bool
	n := 0
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "kill ") {
			kill = strings.Contains(l, "replay.pid")
		}
		if !strings.HasPrefix(l, "go run ./cmd/scent ") || strings.Contains(l, "results/") {
			continue
		}
		if strings.Contains(l, " replay ") && strings.HasSuffix(l, "&") {
			replay = strings.Contains(l, "--pid-file")
		}
		for _, m := range outArg.FindAllStringSubmatch(l, -1) {
			if m[1] == "scent.db" && strings.Contains(l, "seeds/web-crawling.txt") {
				continue // the live crawl of the first lines
			}
			n++
			if !strings.HasPrefix(m[1], "out/") {
				t.Errorf("README command writes %s, outside out/: %s", m[1], l)
			}
		}
	}
	if n == 0 || !replay || !kill {
		t.Errorf("README: %d outputs checked, background replay with --pid-file %v, kill by its pid file %v", n, replay, kill)
	}
}

// TestBuild_withoutCgo: a build without cgo refuses a crawl at once, with
// a message that says what to install, before any fetch.
func TestBuild_withoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command without cgo")
	}
	bin := filepath.Join(t.TempDir(), "scent-nocgo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build without cgo: %v\n%s", err, out)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, fewTopicSeeds(srv.URL))
	out, err := exec.Command(bin, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "x.db")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "C compiler") || !strings.Contains(string(out), "CGO_ENABLED=1") {
		t.Errorf("crawl built without cgo: %v\n%s", err, out)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests before the cgo-less build gave up", hits.Load())
	}
}

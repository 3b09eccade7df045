package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/internal/pgtest"
)

func TestResumable(t *testing.T) {
	err := fmt.Errorf("crawl: %w", resumable{context.Canceled})
	if !errors.Is(err, context.Canceled) || !errors.As(err, new(resumable)) {
		t.Errorf("%v: want a resumable interruption", err)
	}
	if errors.As(fmt.Errorf("grid: %w", context.Canceled), new(resumable)) {
		t.Error("a plain interruption reads as resumable")
	}
}

// TestInterruptedStatus: the exit status of a command stopped by a
// signal is 128 and the signal's number, as a shell gives a process the
// signal killed: 130 for SIGINT, 143 for SIGTERM.
func TestInterruptedStatus(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	} {
		ctx, stop := stopContext(os.Interrupt, syscall.SIGTERM)
		if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: the context was not canceled", tc.sig)
		}
		if got := interruptedStatus(ctx); got != tc.want {
			t.Errorf("%v: exit status %d, want %d", tc.sig, got, tc.want)
		}
		stop()
	}
}

// TestCrawl_signalStatus: a crawl stopped by SIGTERM or SIGINT stops
// cleanly (it says it can be resumed) and exits with 128 and the
// signal's number.
func TestCrawl_signalStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := scentBinary(t)
	site := crawlertest.NewChainSite(t, crawlertest.Chain{N: 1000, Delay: 20 * time.Millisecond})
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+site.Server.URL+"/p0\n")
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{
		{syscall.SIGTERM, 143},
		{syscall.SIGINT, 130},
	} {
		cmd := exec.Command(bin, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, tc.sig.String()+".db"), "--strategy", "bfs",
			"--delay", "0", "--host-parallelism", "0", "--workers", "1", "--log-every", "50ms")
		var stderr syncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "pages ") && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.want {
			t.Errorf("crawl stopped by %v: %v, want exit status %d\n%s", tc.sig, err, tc.want, stderr.String())
		}
		if !strings.Contains(stderr.String(), "scent: interrupted; run the same command again to resume") {
			t.Errorf("crawl stopped by %v did not stop cleanly:\n%s", tc.sig, stderr.String())
		}
	}
}

// TestMain keeps the breadth-first baselines the tests crawl out of the
// user's cache folder. The Go build cache stays where it was, so that the
// tests that build the command reuse it rather than compile SQLite anew.
func TestMain(m *testing.M) {
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	dir, err := os.MkdirTemp("", "scent-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := pgtest.Main(m) // stops the PostgreSQL server the tests started, if any
	os.RemoveAll(dir)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath)) // the scent binary the tests built (scentBinary)
	}
	os.Exit(code)
}

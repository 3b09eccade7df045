package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

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
	os.Exit(code)
}

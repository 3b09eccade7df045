package experiment

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the breadth-first baselines the tests crawl out of the
// user's cache folder.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scent-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProfiles_pathCheckedFirst: a --memprofile or --cpuprofile path
// that cannot be written is refused before the command does any work; a
// writable one holds the profile when the command ends.
func TestProfiles_pathCheckedFirst(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `<html><body>home</body></html>`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	seeds := writeSeeds(t, dir, "seed "+srv.URL+"/\n")
	crawl := func(profile ...string) error {
		args := append(profile, "crawl", "--seeds", seeds, "--db", filepath.Join(dir, "c.db"), "--strategy", "bfs", "--delay", "0", "--quiet")
		_, err := runScent(t, args...)
		return err
	}
	for _, flag := range []string{"--memprofile", "--cpuprofile"} {
		if err := crawl(flag, filepath.Join(dir, "missing", "p.prof")); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s into a missing folder: %v, want an error naming the flag", flag, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests made before the profile's path was refused", n)
	}
	heap := filepath.Join(dir, "heap.prof")
	if err := crawl("--memprofile", heap); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(heap); err != nil || fi.Size() == 0 {
		t.Errorf("heap profile after the crawl: %v", err)
	}
}

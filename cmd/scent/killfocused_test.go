package main

import (
	"database/sql"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/training"
)

// TestCrawl_focusedKillAndResume_webkb: the default focused crawl (a
// learner, fetching whenever a worker is free) of the real corpus, and
// the same in lockstep (rounds guessed ahead), killed with SIGKILL three
// times and run again each time, ends at its budget with every URL
// stored once; a URL is asked at most once a run (a training page twice:
// by the learner's prior, which a process killed before its learner was
// saved reads again, and by the crawl).
func TestCrawl_focusedKillAndResume_webkb(t *testing.T) {
	t.Run("free", func(t *testing.T) { focusedKillAndResume(t) })
	t.Run("lockstep", func(t *testing.T) { focusedKillAndResume(t, "--lockstep") })
}

func focusedKillAndResume(t *testing.T, flags ...string) {
	addr, seeds, log := courseReplay(t)
	bin := scentBinary(t)
	const budget, workers = 1500, 16
	db := filepath.Join(t.TempDir(), "course.db")
	crawl := func() *exec.Cmd {
		args := []string{"crawl", "--seeds", seeds, "--db", db, "--proxy", "http://" + addr,
			"--delay", "0", "--host-parallelism", "0", "--max-pages", strconv.Itoa(budget), "--workers", strconv.Itoa(workers), "--quiet"}
		return exec.Command(bin, append(args, flags...)...)
	}
	stored := func() (pages, urls, ok int) {
		d, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=2000")
		if err != nil {
			return 0, 0, 0
		}
		defer d.Close()
		d.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT url_id), COALESCE(SUM(failure = ''), 0) FROM pages`).Scan(&pages, &urls, &ok)
		return pages, urls, ok
	}
	kills := 0
	for _, at := range []int{budget / 4, budget / 2, 3 * budget / 4} {
		cmd := crawl()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(120 * time.Second)
		for time.Now().Before(deadline) {
			if _, _, ok := stored(); ok >= at {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, _, ok := stored(); ok == 0 || ok >= budget {
			t.Fatalf("killed after %d pages: the kill did not land mid-crawl", ok)
		}
		kills++
	}
	out, err := crawl().CombinedOutput()
	if err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	pages, urls, ok := stored()
	if ok != budget {
		t.Errorf("%d pages stored after %d kills and a resume, want the budget of %d", ok, kills, budget)
	}
	if pages != urls {
		t.Errorf("%d fetches stored for %d URLs: a URL stored twice", pages, urls)
	}
	asked := askedCounts(log.String())
	// Asked again: robots.txt, once a host per process; the fetches in
	// flight at a kill (a round and its guesses, whose kept answers die
	// with the process); and the training pages the learner's prior reads
	// when the killed process had not saved its learner yet.
	sf, err := training.LoadSeeds(seeds)
	if err != nil {
		t.Fatal(err)
	}
	read := make(map[string]bool) // the seed file's URLs: the prior reads them
	for _, u := range append(sf.Crawl, sf.Examples()...) {
		read[u.String()] = true
	}
	examples := len(sf.Examples())
	again, robots := 0, 0
	for u, n := range asked {
		perRun := 1
		if read[u] {
			perRun = 2 // by the prior and by the crawl
		}
		if n > perRun*(1+kills) {
			t.Errorf("%s asked %d times in %d runs", u, n, kills+1)
		}
		switch {
		case n > 1 && strings.HasSuffix(u, "/robots.txt"):
			robots++
		case n > 1:
			again++
		}
	}
	if limit := kills * (4*workers + examples); again > limit {
		t.Errorf("%d URLs asked more than once, more than the %d that %d kills may leave in flight or read again", again, limit, kills)
	}
	t.Logf("%d fetches stored; asked more than once over %d kills: %d URLs, %d robots.txt", pages, kills, again, robots)
}

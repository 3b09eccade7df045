package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/webkb"
)

// courseReplay serves the real corpus on loopback until the test ends,
// logging every request, and writes the course seed file (scent seeds)
// into a folder of the test; it returns the replay's address, the seed
// file and the log. Corpus tests skip when ../shared or -short says so.
func courseReplay(t *testing.T) (addr, seeds string, log *syncBuffer) {
	t.Helper()
	return topicReplay(t, "course")
}

// topicReplay is courseReplay with the seed file of topic.
func topicReplay(t *testing.T, topic string) (addr, seeds string, log *syncBuffer) {
	t.Helper()
	archive := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	a, err := webkb.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	log = new(syncBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := replay.ServeWith(ctx, a, "127.0.0.1:0", replay.ServeOptions{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	seeds = filepath.Join(t.TempDir(), topic+".txt")
	if _, err := runScent(t, "seeds", archive, "--topic", topic, "-o", seeds); err != nil {
		t.Fatal(err)
	}
	return srv.Addr(), seeds, log
}

// askedCounts counts the requests of each URL in a replay's log.
func askedCounts(log string) map[string]int {
	asked := make(map[string]int)
	for _, line := range strings.Split(log, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			asked[f[1]]++
		}
	}
	return asked
}

// TestCrawl_asExperiment: scent crawl, from the seed file scent seeds
// writes and in lockstep through the replay of the corpus, trains the
// model and the page judge scent experiment trains and fetches the same
// URLs in the same order: the command a user runs is the crawler the
// results measure.
func TestCrawl_asExperiment(t *testing.T) {
	addr, seeds, _ := topicReplay(t, "faculty")
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	if out, err := runScent(t, "crawl", "--seeds", seeds, "--db", db, "--proxy", "http://"+addr, "--delay", "0",
		"--host-parallelism", "0", "--max-pages", "300", "--lockstep", "--quiet"); err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	exp := filepath.Join(dir, "exp")
	if out, err := runScent(t, "experiment", sharedtest.Path(t, "corpus/webkb.tgz"), "--topic", "faculty",
		"--budget", "300", "--baseline=false", "--out", exp); err != nil {
		t.Fatalf("experiment: %v\n%s", err, out)
	}
	// The same models, but for the reward thresholds the crawl's record.
	for crawlModel, expModel := range map[string]string{db + ".model.json": "model.json", db + ".model.page.json": "page-model.json"} {
		a, err := loadModel(crawlModel)
		if err != nil {
			t.Fatal(err)
		}
		b, err := loadModel(filepath.Join(exp, expModel))
		if err != nil {
			t.Fatal(err)
		}
		b.SetMeta(experiment.MetaRewards, a.Meta(experiment.MetaRewards))
		var ab, bb bytes.Buffer
		if err := a.Save(&ab); err != nil {
			t.Fatal(err)
		}
		if err := b.Save(&bb); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ab.Bytes(), bb.Bytes()) {
			t.Errorf("%s differs from the experiment's %s", filepath.Base(crawlModel), expModel)
		}
	}
	urls := func(jsonl string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(jsonl), "\n") {
			var p struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p.URL)
		}
		return out
	}
	exported, err := runScent(t, "export", "--db", db, "--format", "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	expPages, err := os.ReadFile(filepath.Join(exp, "pages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got, want := urls(exported), urls(string(expPages))
	if len(want) < 300 || !slices.Equal(got, want) {
		t.Errorf("the crawl fetched %d URLs, the experiment %d; the first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

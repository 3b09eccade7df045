package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
)

func TestDryHint(t *testing.T) {
	dry := &crawler.Summary{Finish: "frontier empty", Relevant: map[string]int{"course": 2, "faculty": 1}}
	spent := &crawler.Summary{Finish: "budget reached"}
	for _, tc := range []struct {
		strategy, preset string
		sum              *crawler.Summary
		want             string // a part of the hint; "" for none
	}{
		{"link", "paper", dry, "the paper's crawler follows only the links it scores on-topic, and none was left (3 of this run's pages on-topic)"},
		{"page", "", dry, "--strategy page follows only the links of pages it finds on-topic"},
		{"link", "", dry, ""},
		{"bfs", "", dry, ""},
		{"link", "paper", spent, ""},
		{"page", "", spent, ""},
	} {
		got := dryHint(tc.strategy, tc.preset, tc.sum)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("dryHint(%q, %q, %q) = %q, want %q", tc.strategy, tc.preset, tc.sum.Finish, got, tc.want)
		}
	}
}

// TestCrawl_backlinksNoneFound: --strategy link+backlinks on a new
// database has no earlier crawl to find links to the examples in; the
// crawl says that its model is then the plain link strategy's.
func TestCrawl_backlinksNoneFound(t *testing.T) {
	srv := topicSite(t)
	dir := t.TempDir()
	out, err := runScent(t, "crawl", "--seeds", topicSeeds(t, srv.URL, dir), "--db", filepath.Join(dir, "new.db"), "--strategy", "link+backlinks",
		"--max-pages", "3", "--delay", "0", "--host-parallelism", "0", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "--strategy link+backlinks: no link to an example was found to learn from") {
		t.Errorf("output does not say that no backlink was found:\n%s", out)
	}
}

func TestReasonKind(t *testing.T) {
	for reason, want := range map[string]string{
		"fetch http://a.test/x: status 404 Not Found":                             "status 404 Not Found",
		"no text: the page has no words":                                          "no text",
		`Get "http://a.test/": dial tcp 127.0.0.1:9: connect: connection refused`: "connection refused",
		"timeout": "timeout",
	} {
		if got := reasonKind(reason); got != want {
			t.Errorf("reasonKind(%q) = %q, want %q", reason, got, want)
		}
	}
}

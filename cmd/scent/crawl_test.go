package main

import (
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

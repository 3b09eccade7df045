package main

import (
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
)

// TestProgressLine_retries: the progress line says how many pages wait
// to be fetched again after a transient failure, and nothing of them
// when none waits.
func TestProgressLine_retries(t *testing.T) {
	for _, tc := range []struct {
		p    crawler.Progress
		want string
	}{
		{crawler.Progress{Pages: 12, Failed: 2, Retrying: 3}, "\rpages 12 (failed fetches 2, 3 waiting to retry) | "},
		{crawler.Progress{Pages: 12, Failed: 2, Retrying: 1, Topics: []string{"course"}, Relevant: []int{4}}, "\rpages 12 (failed fetches 2, 1 waiting to retry) | course relevant 4 | "},
		{crawler.Progress{Pages: 12, Failed: 2}, "\rpages 12 (failed fetches 2) | "},
	} {
		var b strings.Builder
		progressLine(&b)(tc.p)
		if got := b.String(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%d waiting to retry: line %q, want it to begin %q", tc.p.Retrying, got, tc.want)
		}
	}
}

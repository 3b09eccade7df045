package experiment

import (
	"strings"
	"testing"

	"github.com/scent-crawler/scent/report"
)

// TestWriteSummary_noTargets: a topic without held-out targets is said
// to have none, not to have a recall of 0; a topic with targets has its
// figures.
func TestWriteSummary_noTargets(t *testing.T) {
	rep := &report.Report{Strategy: "link", Pages: 1, Fetches: 5, Topics: []*report.TopicStats{
		{Topic: "course"},
		{Topic: "faculty", Targets: 4, Found: 1, Recall: 0.25},
	}}
	var b strings.Builder
	WriteSummary(&b, rep)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("summary:\n%s", b.String())
	}
	if !strings.Contains(lines[0], "link course: 1 pages (5 fetches), no held-out targets: every page labelled course that the seeds reach was learnt from") || strings.Contains(lines[0], "recall") {
		t.Errorf("a topic without targets: %q", lines[0])
	}
	if !strings.Contains(lines[1], "1 of 4 held-out targets: recall 0.250") {
		t.Errorf("a topic with targets: %q", lines[1])
	}
}

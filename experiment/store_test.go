package experiment

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestCheckMeasured: a report that would be zeros because of what it was
// asked (a topic the crawl did not have, labels that never name the
// topic, a link threshold of a topic not measured) is refused, saying
// what the file or crawl holds instead.
func TestCheckMeasured(t *testing.T) {
	c := crawler.CrawlInfo{Name: "default", Topics: []string{"course", "faculty"}}
	labels := report.Labels{
		urlnorm.MustParse("http://a.edu/c1"): "course",
		urlnorm.MustParse("http://a.edu/s1"): "student",
		urlnorm.MustParse("http://a.edu/x"):  "",
	}
	for _, tc := range []struct {
		name   string
		topics []string
		labels report.Labels
		th     map[string]float64
		want   string // "" when measured
	}{
		{"labelled", []string{"course"}, labels, map[string]float64{"course": 0.5, "": 0.3}, ""},
		{"no labels file", []string{"course", "faculty"}, nil, nil, ""},
		{"a topic the crawl lacks", []string{"nosuch"}, labels, nil, `crawl "default" has no topic nosuch (its topics: course, faculty)`},
		{"a topic the labels lack", []string{"course", "faculty"}, labels, nil, "labels no page faculty (its labels: course, student)"},
		{"no label at all", []string{"course"}, report.Labels{urlnorm.MustParse("http://a.edu/x"): ""}, nil, "labels no page (1 lines without a label)"},
		{"a threshold of a topic not measured", []string{"course"}, labels, map[string]float64{"faculty": 0.5}, "link threshold for faculty, a topic not measured (course)"},
	} {
		path := ""
		if tc.labels != nil {
			path = "labels.tsv"
		}
		err := checkMeasured(c, tc.topics, tc.th)
		if err == nil && tc.labels != nil {
			err = CheckLabels(tc.labels, path, tc.topics)
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRun_clearsAnEarlierReport: a run into a folder that holds an
// earlier run's reports removes them before it writes its command, so a
// run that ends early leaves no report beside a command it does not come
// from.
func TestRun_clearsAnEarlierReport(t *testing.T) {
	archive := collectiontest.Write(t)
	out := t.TempDir()
	for _, name := range reportFiles {
		os.WriteFile(filepath.Join(out, name), []byte("an earlier run's"), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run ends as soon as it starts
	s := Spec{Archive: archive, Out: out, Topics: []string{"course"}, Strategy: crawler.StrategyBFS, Budget: 5, Workers: 1,
		Command: "scent experiment … --budget 5", Model: training.DefaultSettings()}
	if _, err := Run(ctx, s, io.Discard); err == nil {
		t.Fatal("a canceled run succeeded")
	}
	for _, name := range reportFiles {
		if _, err := os.Stat(filepath.Join(out, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left beside the new command (%v)", name, err)
		}
	}
}

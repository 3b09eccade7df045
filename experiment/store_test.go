package experiment

import (
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/report"
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
			err = checkLabels(tc.labels, path, tc.topics)
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

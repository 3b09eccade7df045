package main

import (
	"slices"
	"testing"

	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestNameReports: crawls of one name are told apart by the shortest
// distinguishing tail of their database's path, and a database URL by
// its host and database, never its user, password or parameters.
func TestNameReports(t *testing.T) {
	tests := []struct {
		name    string
		sources [][2]string
		want    []string
	}{
		{"files", [][2]string{{"runs/a/scent.db", "c"}, {"runs/b/scent.db", "c"}}, []string{"a/scent.db:c", "b/scent.db:c"}},
		{"distinct names", [][2]string{{"a.db", "x"}, {"b.db", "y"}}, []string{"x", "y"}},
		{"urls", [][2]string{
			{"postgres://scent:secret@127.0.0.1:5433/run_1?sslmode=disable", "c"},
			{"postgresql://scent@127.0.0.1:5433/run_2", "c"},
		}, []string{"run_1:c", "run_2:c"}},
		{"same database on two servers", [][2]string{
			{"postgres://scent@db1:5432/crawl", "c"},
			{"postgres://scent@db2:5432/crawl", "c"},
		}, []string{"db1:5432/crawl:c", "db2:5432/crawl:c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reps := make([]*report.Report, len(tc.sources))
			for i, src := range tc.sources {
				reps[i] = report.New(src[1], "link", nil, nil, 0)
			}
			before := slices.Clone(tc.sources)
			nameReports(reps, tc.sources)
			if !slices.Equal(tc.sources, before) {
				t.Errorf("nameReports changed its sources to %v", tc.sources)
			}
			for i, r := range reps {
				if r.Crawl != tc.want[i] {
					t.Errorf("report %d named %q, want %q", i, r.Crawl, tc.want[i])
				}
			}
		})
	}
}

// TestDifferentLearnt: lists of pages learnt from are compared as sets.
func TestDifferentLearnt(t *testing.T) {
	a, b, c := urlnorm.MustParse("http://a.test/"), urlnorm.MustParse("http://b.test/"), urlnorm.MustParse("http://c.test/")
	for _, tc := range []struct {
		name  string
		lists [][]urlnorm.URL
		want  int
	}{
		{"one crawl", [][]urlnorm.URL{{a}}, 0},
		{"same set, other order", [][]urlnorm.URL{{a, b}, {b, a, a}}, 0},
		{"none kept by both", [][]urlnorm.URL{nil, nil}, 0},
		{"one more page", [][]urlnorm.URL{{a, b}, {a, b}, {a, b, c}}, 2},
		{"none kept by one", [][]urlnorm.URL{{a}, nil}, 1},
		{"other pages", [][]urlnorm.URL{{a, b}, {a, c}}, 1},
	} {
		if got := differentLearnt(tc.lists); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/urlnorm"
)

// topicStore is a crawl of course and faculty: /a a course page and /b
// a copy of it, /c a faculty page, /d on neither, /e a failed fetch.
func topicStore(t *testing.T) string {
	t.Helper()
	course := "course syllabus " + randomWords(1, 800)
	page := func(path, text string, course, faculty float64) *crawler.Page {
		return &crawler.Page{URL: urlnorm.MustParse("http://x.test" + path), Status: 200, Title: path, Text: text, Topic: "course",
			Scores: map[string]float64{"course": course, "faculty": faculty}, Relevant: map[string]bool{"course": course > 0.5, "faculty": faculty > 0.5}}
	}
	failed := &crawler.Page{URL: urlnorm.MustParse("http://x.test/e"), Failure: "status: HTTP 404", Status: 404}
	pages := []*crawler.Page{page("/a", course, 0.9, 0.1), page("/b", course, 0.9, 0.1), page("/c", "professor "+randomWords(2, 800), 0.2, 0.8),
		page("/d", "news "+randomWords(3, 800), 0.1, 0.1), failed}
	return committedStore(t, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyLink, Topics: []string{"course", "faculty"}, Stacks: []string{"course", "faculty"}}, pages)
}

// TestExport_choices: --relevant, --topic, --originals and --text choose
// the lines and their text; without them every fetch, without text.
func TestExport_choices(t *testing.T) {
	db := topicStore(t)
	for _, tt := range []struct {
		flags []string
		want  []string // paths, in fetch order
		text  bool
	}{
		{nil, []string{"/a", "/b", "/c", "/d", "/e"}, false},
		{[]string{"--relevant"}, []string{"/a", "/b", "/c"}, false},
		{[]string{"--topic", "course"}, []string{"/a", "/b"}, false},
		{[]string{"--topic", "Faculty", "--text"}, []string{"/c"}, true},
		{[]string{"--topic", "course", "--originals", "--text"}, []string{"/a"}, true},
		{[]string{"--originals", "--text"}, []string{"/a", "/c", "/d", "/e"}, true},
	} {
		name := strings.Join(tt.flags, " ")
		out, err := runScent(t, append([]string{"export", "--db", db}, tt.flags...)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e experiment.ExportLine
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: %v in %q", name, err, line)
			}
			path := strings.TrimPrefix(e.URL, "http://x.test")
			got = append(got, path)
			switch {
			case !tt.text && e.Text != nil:
				t.Errorf("%s: %s has a text", name, path)
			case tt.text && e.Text == nil:
				t.Errorf("%s: %s has no text", name, path)
			case tt.text && path == "/e" && *e.Text != "":
				t.Errorf("%s: the failed fetch has text %q", name, *e.Text)
			case tt.text && path == "/c" && !strings.HasPrefix(*e.Text, "professor "):
				t.Errorf("%s: /c's text %.40q, want the page's", name, *e.Text)
			case tt.text && path == "/a" && !strings.HasPrefix(*e.Text, "course syllabus "):
				t.Errorf("%s: /a's text %.40q, want the page's", name, *e.Text)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("export %s: %v, want %v", name, got, tt.want)
		}
	}
	if _, err := runScent(t, "export", "--db", db, "--topic", "staff"); err == nil || !strings.Contains(err.Error(), `crawl "c" has no topic "staff" (its topics: course, faculty)`) {
		t.Errorf("--topic staff: %v", err)
	}
	if _, err := runScent(t, "export", "--db", db, "--format", "warc", "--out", t.TempDir(), "--text"); err == nil || !strings.Contains(err.Error(), "--text chooses what --format jsonl writes") {
		t.Errorf("--format warc --text: %v", err)
	}
}

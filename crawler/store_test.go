package crawler

import (
	"slices"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestPageLink_Score(t *testing.T) {
	topics := []string{"course", "faculty"}
	scored := PageLink{Link: Link{Target: urlnorm.MustParse("http://a.test/x"), Scores: []float64{0.75, 0.25}}, Topics: topics}
	unscored := PageLink{Link: Link{Target: urlnorm.MustParse("http://a.test/y")}, Topics: topics}
	tests := []struct {
		name  string
		link  PageLink
		topic string
		want  float64
		ok    bool
	}{
		{"first topic", scored, "course", 0.75, true},
		{"second topic", scored, "faculty", 0.25, true},
		{"not a topic of the crawl", scored, "student", 0, false},
		{"not scored", unscored, "course", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := tt.link.Score(tt.topic); got != tt.want || ok != tt.ok {
				t.Errorf("Score(%q) = %v, %v; want %v, %v", tt.topic, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestPage_CheckScores(t *testing.T) {
	u := urlnorm.MustParse("http://a.test/")
	topics := []string{"a", "b"}
	tests := []struct {
		name string
		page Page
		ok   bool
	}{
		{"no scores", Page{URL: u, Links: []Link{{Target: u}}}, true},
		{"page and links scored", Page{URL: u, Scores: map[string]float64{"a": 1, "b": 0}, Links: []Link{{Target: u, Scores: []float64{1, 0}}}}, true},
		{"a page score missing", Page{URL: u, Scores: map[string]float64{"a": 1}}, false},
		{"a page score of another topic", Page{URL: u, Scores: map[string]float64{"a": 1, "c": 0}}, false},
		{"a link with too few scores", Page{URL: u, Links: []Link{{Target: u, Scores: []float64{1}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.page.CheckScores(topics); (err == nil) != tt.ok {
				t.Errorf("CheckScores = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestPage_AliasOf(t *testing.T) {
	mk := urlnorm.MustParse
	page := func(redirects ...Redirect) *Page {
		return &Page{URL: mk("http://a.test/x"), FinalURL: mk("http://a.test/y"), Status: 200, Title: "t", Text: "some text",
			Links: []Link{{Target: mk("http://a.test/z")}}, Scores: map[string]float64{"a": 0.5}, Relevant: map[string]bool{"a": true},
			Redirects: redirects}
	}
	final := mk("http://a.test/y")
	tests := []struct {
		name string
		page *Page
		want []Redirect
	}{
		{"no hop recorded", page(), []Redirect{{URL: mk("http://a.test/x"), Target: final, Status: 200}}},
		{"last hop to final", page(Redirect{URL: mk("http://a.test/x"), Target: final, Status: 301}),
			[]Redirect{{URL: mk("http://a.test/x"), Target: final, Status: 301}}},
		{"last hop elsewhere", page(Redirect{URL: mk("http://a.test/x"), Target: mk("http://a.test/w"), Status: 302}),
			[]Redirect{{URL: mk("http://a.test/x"), Target: mk("http://a.test/w"), Status: 302}, {URL: mk("http://a.test/x"), Target: final, Status: 200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.page
			p.AliasOf(final, 7)
			if p.RedirectTo != final || p.Failure != "redirect: to http://a.test/y, stored as page 7" {
				t.Errorf("RedirectTo %s, Failure %q", p.RedirectTo, p.Failure)
			}
			if p.Title != "" || p.Text != "" || p.Links != nil || p.Scores != nil || p.Relevant != nil || p.Signature.Indexable() {
				t.Errorf("an alias keeps page content: %+v", p)
			}
			if !slices.Equal(p.Redirects, tt.want) {
				t.Errorf("Redirects = %v, want %v", p.Redirects, tt.want)
			}
		})
	}
	self := &Page{URL: final, Status: 200, Text: "x"}
	self.AliasOf(final, 3)
	if len(self.Redirects) != 0 {
		t.Errorf("a page fetched at its final URL gets redirects %v", self.Redirects)
	}
}

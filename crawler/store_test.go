package crawler

import (
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

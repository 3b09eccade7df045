package sqlite

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_EachLink(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"course", "faculty"},
		Topics: []string{"course", "faculty"}, Seeds: []urlnorm.URL{u("/seed")}})
	if err != nil {
		t.Fatal(err)
	}
	pages := []*crawler.Page{
		{URL: u("/seed"), Topic: "course", Status: 200, Scores: []float64{0.1, 0.2}, Relevant: []bool{false, false},
			Links: []crawler.Link{
				{Target: u("/c1"), Anchor: "CS 101", Context: "see CS 101 now", Scores: []float64{0.9, 0.125}},
				{Target: u("/f1"), Anchor: "Prof", Context: "Prof", Scores: []float64{0.25, 0.8}},
			}},
		{URL: u("/c1"), Topic: "course", Status: 200, Links: []crawler.Link{{Target: u("/x"), Anchor: "x"}}},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	var got []LinkRow
	if err := s.EachLink(ctx, st.ID, func(r *LinkRow) error { got = append(got, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []LinkRow{
		{Page: u("/seed").String(), Target: u("/c1").String(), Anchor: "CS 101", Context: "see CS 101 now", Scores: map[string]float64{"course": 0.9, "faculty": 0.125}},
		{Page: u("/seed").String(), Target: u("/f1").String(), Anchor: "Prof", Context: "Prof", Scores: map[string]float64{"course": 0.25, "faculty": 0.8}},
		{Page: u("/c1").String(), Target: u("/x").String(), Anchor: "x"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d links, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Page != w.Page || g.Target != w.Target || g.Anchor != w.Anchor || g.Context != w.Context || len(g.Scores) != len(w.Scores) {
			t.Errorf("link %d = %+v, want %+v", i, g, w)
			continue
		}
		for k, v := range w.Scores {
			if g.Scores[k] != v {
				t.Errorf("link %d score %s = %v, want %v", i, k, g.Scores[k], v)
			}
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := s.EachLink(ctx, st.ID, func(*LinkRow) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("EachLink after a callback error: err %v after %d calls, want stop after 1", err, n)
	}
	if err := s.EachLink(ctx, 999, func(*LinkRow) error { return nil }); err == nil {
		t.Error("EachLink of an unknown crawl gave no error")
	}
}

func TestParseScores(t *testing.T) {
	topics := []string{"a", "b"}
	tests := []struct {
		in      string
		want    map[string]float64
		wantErr bool
	}{
		{"", nil, false},
		{"[]", nil, false},
		{"[0.5,0.25]", map[string]float64{"a": 0.5, "b": 0.25}, false},
		{"[1e-05, 1]", map[string]float64{"a": 1e-05, "b": 1}, false},
		{"[0.5]", nil, true},
		{"0.5,0.25", nil, true},
		{"[x,1]", nil, true},
	}
	for _, tt := range tests {
		got, err := parseScores(tt.in, topics)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseScores(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("parseScores(%q) = %v, want %v", tt.in, got, tt.want)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("parseScores(%q)[%s] = %v, want %v", tt.in, k, got[k], v)
			}
		}
	}
	if m, err := parseScores("[NaN,+Inf]", topics); err != nil || !math.IsNaN(m["a"]) || !math.IsInf(m["b"], 1) {
		t.Errorf("non-finite scores: %v, %v", m, err)
	}
}

func FuzzParseScores(f *testing.F) {
	for _, s := range []string{"", "[]", "[0.5,0.25]", "[NaN,1]", "[,]", "[", "]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseScores(s, []string{"a", "b"})
		if err == nil && m != nil && len(m) != 2 {
			t.Errorf("parseScores(%q) = %v without error", s, m)
		}
	})
}

package sqlite

import (
	"context"
	"errors"
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
		{URL: u("/seed"), Topic: "course", Status: 200, Scores: map[string]float64{"course": 0.1, "faculty": 0.2}, Relevant: map[string]bool{"course": false, "faculty": false},
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

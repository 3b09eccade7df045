package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_EachLink(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	topics := []string{"course", "faculty"}
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: topics,
		Topics: topics, Seeds: []urlnorm.URL{u("/seed")}})
	if err != nil {
		t.Fatal(err)
	}
	pages := []*crawler.Page{
		{URL: u("/seed"), FinalURL: u("/seed/"), Topic: "course", Status: 200, Scores: map[string]float64{"course": 0.1, "faculty": 0.2}, Relevant: map[string]bool{"course": false, "faculty": false},
			Links: []crawler.Link{
				{Target: u("/c1"), Anchor: "CS 101", Context: "see CS 101 now", Scores: []float64{0.9, 0.125}},
				{Target: u("/f1"), Anchor: "Prof", Context: "Prof", Scores: []float64{0.25, 0.8}},
			}},
		{URL: u("/c1"), Topic: "course", Status: 200, Links: []crawler.Link{{Target: u("/x"), Anchor: "x"}}},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	var got []crawler.PageLink
	if err := s.EachLink(ctx, st.ID, func(l *crawler.PageLink) error { got = append(got, *l); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []crawler.PageLink{
		{Parent: u("/seed/"), Link: pages[0].Links[0], Topics: topics},
		{Parent: u("/seed/"), Link: pages[0].Links[1], Topics: topics},
		{Parent: u("/c1"), Link: pages[1].Links[0], Topics: topics},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links read back as\n%+v\nwant\n%+v", got, want)
	}
	if v, ok := got[1].Score("faculty"); !ok || v != 0.8 {
		t.Errorf("Score(faculty) of the second link = %v, %v; want 0.8, true", v, ok)
	}
	stop := errors.New("stop")
	n := 0
	if err := s.EachLink(ctx, st.ID, func(*crawler.PageLink) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("EachLink after a callback error: err %v after %d calls, want stop after 1", err, n)
	}
	if err := s.EachLink(ctx, 999, func(*crawler.PageLink) error { return nil }); err == nil {
		t.Error("EachLink of an unknown crawl gave no error")
	}
}

// TestStore_EachLink_damaged: a stored target that does not parse is an
// error of the read, not a zero URL.
func TestStore_EachLink_damaged(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{""}, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		t.Fatal(err)
	}
	p := &crawler.Page{URL: u("/"), Status: 200, Links: []crawler.Link{{Target: u("/x"), Anchor: "x"}}}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{p}, nil); err != nil {
		t.Fatal(err)
	}
	blob := encodeLinks([]storedLink{{Target: "not a URL", Anchor: "x"}})
	if _, err := s.db.ExecContext(ctx, `UPDATE pages SET links = ?`, blob); err != nil {
		t.Fatal(err)
	}
	if err := s.EachLink(ctx, st.ID, func(*crawler.PageLink) error { return nil }); err == nil {
		t.Error("EachLink of a target that does not parse gave no error")
	}
	if err := s.EachFetch(ctx, st.ID, func(*crawler.Page) error { return nil }); err == nil {
		t.Error("EachFetch of a target that does not parse gave no error")
	}
}

// BenchmarkStore_EachLink is the read of a crawl's links for a report: a
// crawl of 200 pages of 50 links each, scored for two topics, read back
// with each link's score looked up by topic. It reports the time a link.
func BenchmarkStore_EachLink(b *testing.B) {
	ctx := context.Background()
	s, _ := open(b)
	topics := []string{"course", "faculty"}
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "b", Strategy: crawler.StrategyLink, Stacks: topics, Topics: topics, Seeds: []urlnorm.URL{u("/")}})
	if err != nil {
		b.Fatal(err)
	}
	const pages, links = 200, 50
	var batch []*crawler.Page
	for i := range pages {
		p := &crawler.Page{URL: u(fmt.Sprintf("/p%d", i)), Topic: "course", Status: 200, FetchedAt: time.Now()}
		for k := range links {
			p.Links = append(p.Links, crawler.Link{Target: u(fmt.Sprintf("/p%d/l%d", i, k)), Anchor: "a link",
				Context: "some words before a link and some after it", Scores: []float64{float64(k) / links, 0.5}})
		}
		batch = append(batch, p)
	}
	if err := s.Commit(ctx, st.ID, batch, nil); err != nil {
		b.Fatal(err)
	}
	var sum float64
	for b.Loop() {
		err := s.EachLink(ctx, st.ID, func(l *crawler.PageLink) error {
			v, _ := l.Score("faculty")
			sum += v
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pages*links), "ns/link")
}

// TestEachFetch_manyPages: EachFetch reads a crawl of more pages than
// one chunk, every page once, in fetch order, each with its links.
func TestEachFetch_manyPages(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	const n = 2*fetchChunk + 7
	for i := range n {
		p := &crawler.Page{URL: u(fmt.Sprintf("/p%d", i)), Status: 200, Title: "t", Text: "x",
			Links: []crawler.Link{{Target: u(fmt.Sprintf("/p%d", i+1)), Anchor: "next"}}}
		if err := s.Commit(ctx, st.ID, []*crawler.Page{p}, nil); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	err := s.EachFetch(ctx, st.ID, func(p *crawler.Page) error {
		if want := u(fmt.Sprintf("/p%d", i)); p.URL != want || len(p.Links) != 1 {
			t.Fatalf("page %d: %s with %d links, want %s with 1", i, p.URL, len(p.Links), want)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Errorf("EachFetch read %d pages (%v), want %d", i, err, n)
	}
}

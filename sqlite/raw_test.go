package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_EachFetch_rawExchanges(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"t"}, Topics: []string{"t"}, Seeds: []urlnorm.URL{u("/a")}})
	if err != nil {
		t.Fatal(err)
	}
	es, err := s.Pop(ctx, st.ID, "t", crawler.LIFO, 1, 0)
	if err != nil || len(es) != 1 {
		t.Fatal(es, err)
	}
	body := strings.Repeat("<p>a page of words, words and words</p>\n", 200)
	sent := time.Date(2026, 11, 23, 10, 0, 0, 123000, time.UTC)
	exs := []*fetch.Exchange{
		{URL: "http://a.test/a", Date: sent, Request: []byte("GET /a HTTP/1.1\r\nHost: a.test\r\n\r\n"),
			Response: []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\n\r\n")},
		{URL: "http://a.test/b", Date: sent, Request: []byte("GET /b HTTP/1.1\r\nHost: a.test\r\n\r\n"),
			Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body), Truncated: true},
	}
	p := &crawler.Page{URL: u("/a"), FinalURL: u("/b"), Topic: "t", Status: 200, FetchedAt: sent, Size: len(body),
		ContentHash: "ab", Scores: map[string]float64{"t": 0.8}, Relevant: map[string]bool{"t": true}, Exchanges: exs,
		Links: []crawler.Link{{Target: u("/c"), Anchor: "c", Scores: []float64{0.25}}}}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{p}, nil); err != nil {
		t.Fatal(err)
	}
	var got []*crawler.Page
	if err := s.EachFetch(ctx, st.ID, func(p *crawler.Page) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d pages", len(got))
	}
	g := got[0]
	if g.URL != p.URL || g.FinalURL != p.FinalURL || g.Scores["t"] != 0.8 || !g.Relevant["t"] || len(g.Links) != 1 || g.Links[0].Scores[0] != 0.25 {
		t.Errorf("page %+v", g)
	}
	if len(g.Exchanges) != 2 {
		t.Fatalf("%d exchanges", len(g.Exchanges))
	}
	for i, e := range g.Exchanges {
		w := exs[i]
		if e.URL != w.URL || !e.Date.Equal(w.Date) || !bytes.Equal(e.Request, w.Request) || !bytes.Equal(e.Response, w.Response) || e.Truncated != w.Truncated {
			t.Errorf("exchange %d: %+v, want %+v", i, e, w)
		}
	}
	rs, err := s.RawStats(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Pages != 1 || rs.Exchanges != 2 || rs.Bytes != int64(len(exs[0].Response)+len(exs[1].Response)) || rs.Compressed >= rs.Bytes/4 {
		t.Errorf("stats %+v", rs)
	}
}

// TestInflate_withoutDictionary reads an exchange stored before
// exchanges were compressed against fetch.RawDict.
func TestInflate_withoutDictionary(t *testing.T) {
	page := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>a page</p>")
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	w.Write(page)
	w.Close()
	got, err := inflate(buf.Bytes())
	if err != nil || !bytes.Equal(got, page) {
		t.Fatalf("inflate = %q, %v; want %q", got, err, page)
	}
	if _, err := inflate([]byte("not deflate at all")); err == nil {
		t.Error("inflate of garbage gave no error")
	}
}

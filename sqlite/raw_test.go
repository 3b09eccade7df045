package sqlite

import (
	"bytes"
	"compress/flate"
	"context"
	"net/http"
	"net/http/httptest"
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

// TestStore_EachFetch_largeRawExchange: a response the fetcher held
// compressed only, as it does a large one, is stored with its length and
// reads back as sent.
func TestStore_EachFetch_largeRawExchange(t *testing.T) {
	body := bytes.Repeat([]byte("<p>a large page of words</p>\n"), 3<<20/29)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) }))
	defer srv.Close()
	f, err := fetch.New(fetch.Config{KeepRaw: true, IgnoreRobots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	target := urlnorm.MustParse(srv.URL + "/large")
	res, err := f.Fetch(ctx, target, nil)
	if err != nil || len(res.Exchanges) != 1 || res.Exchanges[0].Response != nil {
		t.Fatalf("fetch: %v; want one exchange held compressed only", err)
	}
	sent, err := res.Exchanges[0].RawResponse()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyBFS, Stacks: []string{"t"}, Topics: []string{"t"}, Seeds: []urlnorm.URL{target}})
	if err != nil {
		t.Fatal(err)
	}
	if es, err := s.Pop(ctx, st.ID, "t", crawler.FIFO, 1, 0); err != nil || len(es) != 1 {
		t.Fatal(es, err)
	}
	p := &crawler.Page{URL: target, FinalURL: target, Topic: "t", Status: 200, FetchedAt: time.Now(), Size: len(body),
		ContentHash: "ab", Exchanges: res.Exchanges}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{p}, nil); err != nil {
		t.Fatal(err)
	}
	var got []*fetch.Exchange
	if err := s.EachFetch(ctx, st.ID, func(p *crawler.Page) error { got = append(got, p.Exchanges...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !bytes.Equal(got[0].Response, sent) || !bytes.Equal(got[0].Body(), body) {
		t.Fatalf("%d exchanges read back; want the response as sent", len(got))
	}
	if rs, err := s.RawStats(ctx, st.ID); err != nil || rs.Bytes != int64(len(sent)) || rs.Compressed >= rs.Bytes/4 {
		t.Errorf("stats %+v, %v; want %d bytes", rs, err, len(sent))
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

// TestStore_urlsStoredOnce: a final URL equal to the page's URL and an
// exchange's target equal to the page's URL (first hop) or final URL
// (later hops) are stored empty and read back whole; any other target
// is kept as sent.
func TestStore_urlsStoredOnce(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	sent := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	ex := func(target string) *fetch.Exchange {
		return &fetch.Exchange{URL: target, Date: sent, Request: []byte("GET / HTTP/1.1\r\n\r\n"), Response: []byte("HTTP/1.1 200 OK\r\n\r\n")}
	}
	pages := []*crawler.Page{
		{URL: u("/plain"), Status: 200, ContentHash: "1", Text: "one", Exchanges: []*fetch.Exchange{ex("http://a.test/plain")},
			Links: []crawler.Link{{Target: u("/x"), Anchor: "x"}}},
		{URL: u("/q?a=it's"), Status: 200, ContentHash: "2", Text: "two", Exchanges: []*fetch.Exchange{ex("http://a.test/q?a=it%27s")}},
		{URL: u("/r1"), FinalURL: u("/r3"), Status: 200, ContentHash: "3", Text: "three",
			Exchanges: []*fetch.Exchange{ex("http://a.test/r1"), ex("http://a.test/r2"), ex("http://a.test/r3")},
			Links:     []crawler.Link{{Target: u("/y"), Anchor: "y"}}},
		{URL: u("/gone"), Status: 404, Failure: "http 404", Exchanges: []*fetch.Exchange{ex("http://a.test/gone")}},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	var stored []string
	rows, err := s.DB().Query(`SELECT p.final_url || ' |' || group_concat(r.url, ' ') FROM pages p JOIN raw_exchanges r ON r.page_id = p.id GROUP BY p.id ORDER BY p.ord`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v string
		rows.Scan(&v)
		stored = append(stored, v)
	}
	rows.Close()
	want := []string{" |", " |http://a.test/q?a=it%27s", "http://a.test/r3 | http://a.test/r2 ", " |"}
	if strings.Join(stored, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored final URLs | exchange targets:\n%q\nwant\n%q", stored, want)
	}
	var got []*crawler.Page
	if err := s.EachFetch(ctx, st.ID, func(p *crawler.Page) error { got = append(got, p); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pages) {
		t.Fatalf("%d pages read back", len(got))
	}
	for i, g := range got {
		p := pages[i]
		final := p.FinalURL
		if final.IsZero() {
			final = p.URL
		}
		if g.URL != p.URL || g.FinalURL != final || len(g.Exchanges) != len(p.Exchanges) {
			t.Errorf("page %s read back as %s → %s with %d exchanges", p.URL, g.URL, g.FinalURL, len(g.Exchanges))
			continue
		}
		for k, e := range g.Exchanges {
			if e.URL != p.Exchanges[k].URL {
				t.Errorf("page %s exchange %d: target %q, want %q", p.URL, k, e.URL, p.Exchanges[k].URL)
			}
		}
	}
	var parents []string
	if err := s.EachLink(ctx, st.ID, func(l *crawler.PageLink) error { parents = append(parents, l.Parent.String()); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(parents, " ") != "http://a.test/plain http://a.test/r3" {
		t.Errorf("links found on %v, want /plain and /r3", parents)
	}
	// A second page reaching /r3 becomes an alias of the stored one, as
	// does a page reaching /plain, stored without its final URL.
	again := []*crawler.Page{
		{URL: u("/r0"), FinalURL: u("/r3"), Status: 200, ContentHash: "4", Text: "three again"},
		{URL: u("/p0"), FinalURL: u("/plain"), Status: 200, ContentHash: "5", Text: "one again"},
	}
	if err := s.Commit(ctx, st.ID, again, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range again {
		if !strings.HasPrefix(p.Failure, "redirect: to "+p.FinalURL.String()) {
			t.Errorf("page %s → %s: failure %q, want an alias", p.URL, p.FinalURL, p.Failure)
		}
	}
	fs, err := s.FetchStats(ctx, st.ID)
	if err != nil || fs.FinalURLsTwice != 0 || fs.Pages != 3 {
		t.Errorf("fetch stats %+v, %v", fs, err)
	}
}

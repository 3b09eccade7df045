package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
)

func TestEncodeLinks_roundTrip(t *testing.T) {
	links := []storedLink{
		{Target: "http://a.example/x", Anchor: "x", Context: "see x here", Scores: []float64{0.9, math.NaN(), math.Inf(-1)}},
		{Target: "http://a.example/y?q=1", Anchor: "", Context: ""},
		{Target: "http://b.example/ü", Anchor: "ü ü", Context: "€", Scores: []float64{}},
	}
	got, err := decodeLinks(encodeLinks(links))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(links) {
		t.Fatalf("%d links, want %d", len(got), len(links))
	}
	for i := range links {
		w, g := links[i], got[i]
		if g.Target != w.Target || g.Anchor != w.Anchor || g.Context != w.Context || len(g.Scores) != len(w.Scores) {
			t.Errorf("link %d = %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Scores {
			if math.Float64bits(g.Scores[j]) != math.Float64bits(w.Scores[j]) {
				t.Errorf("link %d score %d = %v, want %v", i, j, g.Scores[j], w.Scores[j])
			}
		}
	}
	if encodeLinks(nil) != nil {
		t.Error("no links encode to something")
	}
}

func TestDecodeLinks_damaged(t *testing.T) {
	good := encodeLinks([]storedLink{{Target: "http://a.example/", Anchor: "a", Context: "a b c", Scores: []float64{1}}})
	for name, b := range map[string][]byte{
		"empty":        nil,
		"not deflate":  []byte("hello"),
		"cut":          good[:len(good)/2],
		"other format": linkWriters.Append(nil, []byte{9, 0}),
		"huge count":   linkWriters.Append(nil, []byte{linksFormat, 0xff, 0xff, 0xff, 0xff, 0x0f}),
		"trailing":     linkWriters.Append(nil, append(mustInflate(t, good), 0)),
	} {
		if _, err := decodeLinks(b); !errors.Is(err, errLinksBlob) {
			t.Errorf("%s: err = %v, want a damaged link list", name, err)
		}
	}
}

func mustInflate(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := inflate(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzParseLinks: any bytes are read without a panic, and what reads
// encodes back to the same bytes.
func FuzzParseLinks(f *testing.F) {
	f.Add(mustInflate(&testing.T{}, encodeLinks([]storedLink{{Target: "http://a/", Anchor: "a", Context: "c", Scores: []float64{0.5}}})))
	f.Add([]byte{linksFormat, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		links, err := parseLinks(b)
		if err != nil || len(links) == 0 {
			return
		}
		again, err := parseLinks(mustInflate(t, encodeLinks(links)))
		if err != nil {
			t.Fatalf("re-encoded list does not read: %v", err)
		}
		if !reflect.DeepEqual(stripNaN(again), stripNaN(links)) {
			t.Fatalf("round trip changed the links")
		}
	})
}

func stripNaN(ls []storedLink) []storedLink {
	out := make([]storedLink, len(ls))
	for i, l := range ls {
		out[i] = l
		out[i].Scores = nil
		for _, v := range l.Scores {
			out[i].Scores = append(out[i].Scores, float64(math.Float64bits(v)))
		}
	}
	return out
}

// TestMigrate_linksToPageLinks: a database written with one row a link
// (schema 9) is migrated: every page's links move to page_links in order,
// with their scores, and the old table is gone.
func TestMigrate_linksToPageLinks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:9] {
		if _, err := db.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	for _, q := range []string{
		`PRAGMA user_version = 9`,
		`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'link', '["t"]', '["t"]', '{}', '2024-01-01T00:00:00Z')`,
		`INSERT INTO urls(id, crawl_id, url, host, state) VALUES (1, 1, 'http://a/', 'a', 2), (2, 1, 'http://a/w', 'a', 0)`,
		`INSERT INTO pages(id, crawl_id, ord, url_id, url, final_url, topic, depth, status, fetched_at, duration_ms, size, content_type, etag, modified, content_hash, title, text, failure)
			VALUES (1, 1, 1, 1, 'http://a/', 'http://a/', 't', 0, 200, '2024-01-01T00:00:00Z', 1, 10, 'text/html', '', '', 'h', 'A', 'a b', '')`,
		`INSERT INTO links(page_id, target, anchor, context, scores) VALUES (1, 'http://a/w', 'w', 'x w y', '[0.75]'), (1, 'http://a/v', 'v', 'v', '')`,
		`INSERT INTO search(docid, title, text) VALUES (1, 'A', 'a b')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	s.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'links'`).Scan(&n)
	if n != 0 {
		t.Error("table links still there")
	}
	var got []crawler.PageLink
	if err := s.EachLink(ctx, 1, func(l *crawler.PageLink) error { got = append(got, *l); return nil }); err != nil {
		t.Fatal(err)
	}
	score := func(l crawler.PageLink) float64 { v, _ := l.Score("t"); return v }
	if len(got) != 2 || got[0].Target.String() != "http://a/w" || got[0].Context != "x w y" || score(got[0]) != 0.75 ||
		got[1].Target.String() != "http://a/v" || got[1].Scores != nil {
		t.Errorf("links after migration: %+v", got)
	}
	var snippet string
	if err := s.DB().QueryRow(`SELECT snippet(search) FROM search WHERE search MATCH 'b'`).Scan(&snippet); err != nil || snippet != "a <b>b</b>" {
		t.Errorf("search after migration: %q, %v", snippet, err)
	}
	var waiting int
	s.DB().QueryRow(`SELECT waiting FROM hosts WHERE crawl_id = 1 AND host = 'a'`).Scan(&waiting)
	if waiting != 1 {
		t.Errorf("host a has %d URLs waiting after migration, want 1", waiting)
	}
}

// BenchmarkEncodeLinks: the cost of storing a page of 200 links (a link
// farm's page), and its size.
func BenchmarkEncodeLinks(b *testing.B) {
	var links []storedLink
	seed := uint64(1)
	words := []string{"offers", "cheap", "deals", "every", "day", "click", "here", "for", "more", "great", "value"}
	for k := 0; k < 200; k++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		var ctx []string
		for j := 0; j < 22; j++ {
			ctx = append(ctx, words[(seed>>uint(j))%uint64(len(words))])
		}
		links = append(links, storedLink{Target: fmt.Sprintf("http://farm.example/f/%x", seed), Anchor: ctx[10] + " " + ctx[11], Context: strings.Join(ctx, " ")})
	}
	var n int
	for b.Loop() {
		n = len(encodeLinks(links))
	}
	b.ReportMetric(float64(n), "bytes/page")
}

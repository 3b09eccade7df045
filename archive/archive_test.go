package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
	"github.com/scent-crawler/scent/warc"
)

func page(path, body string) *crawler.Page {
	u := urlnorm.MustParse("http://a.test" + path)
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	return &crawler.Page{URL: u, FinalURL: u, Topic: "course", Depth: 1, Status: 200, FetchedAt: at,
		Scores: map[string]float64{"course": 0.9}, Relevant: map[string]bool{"course": true},
		Links: []crawler.Link{{Target: urlnorm.MustParse("http://a.test/next"), Scores: []float64{0.8}}},
		Exchanges: []*fetch.Exchange{{URL: u.String(), Date: at,
			Request:  []byte("GET " + path + " HTTP/1.1\r\nHost: a.test\r\n\r\n"),
			Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body)}}}
}

func TestWriter_WritePage(t *testing.T) {
	ctx := context.Background()
	d, err := warc.OpenDir(ctx, warc.DirConfig{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(d, []string{"course"})
	refused := page("/private", "")
	refused.Exchanges, refused.Status, refused.Failure = nil, 0, "robots: disallowed by robots.txt"
	for _, p := range []*crawler.Page{page("/a", "<p>same</p>"), page("/b", "<p>same</p>"), refused} {
		if err := w.WritePage(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := w.WriteRevisit(ctx, "http://a.test/a", "http://a.test/a", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), true); !ok || err != nil {
		t.Fatalf("revisit of an archived page: %v %v", ok, err)
	}
	if ok, _ := w.WriteRevisit(ctx, "http://a.test/none", "http://a.test/none", time.Now(), false); ok {
		t.Errorf("revisit of a page never archived written")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := d.Files()
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rd := warc.NewReader(bytes.NewReader(data))
	var kinds []string
	var recs []*warc.Record
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, r.Type())
		recs = append(recs, r)
	}
	want := "warcinfo request response metadata request revisit metadata metadata revisit"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("records %s, want %s", got, want)
	}
	resp, revisit := recs[2], recs[5]
	if revisit.Header.Get("WARC-Refers-To") != resp.ID() || revisit.Header.Get("WARC-Payload-Digest") != warc.Digest([]byte("<p>same</p>")) ||
		revisit.Header.Get("WARC-Profile") != warc.ProfileIdenticalPayload || strings.Contains(string(revisit.Block), "same") {
		t.Errorf("revisit %v %q", revisit.Header, revisit.Block)
	}
	if recs[1].Header.Get("WARC-Concurrent-To") != resp.ID() || recs[3].Header.Get("WARC-Concurrent-To") != resp.ID() {
		t.Errorf("request and metadata not tied to the response")
	}
	meta := string(recs[3].Block)
	for _, s := range []string{"scent-stack: course\r\n", "scent-page-score: course 0.9 on-topic\r\n", "outlink: http://a.test/next course=0.8\r\n"} {
		if !strings.Contains(meta, s) {
			t.Errorf("metadata %q lacks %q", meta, s)
		}
	}
	if r := recs[8]; r.Header.Get("WARC-Profile") != ProfileNotModified || r.Header.Get("WARC-Refers-To") != resp.ID() || len(r.Block) != 0 {
		t.Errorf("not-modified revisit %v", r.Header)
	}
	if !strings.Contains(string(recs[7].Block), "scent-failure: robots: disallowed") || recs[7].TargetURI() != "http://a.test/private" {
		t.Errorf("refused page's metadata %q", recs[7].Block)
	}
}

// BenchmarkWriter_rememberMemory reports the heap one archived page takes
// in the Writer's memory of payloads and URLs (for revisit records),
// which maxDigests bounds.
func BenchmarkWriter_rememberMemory(b *testing.B) {
	const n = 1 << 15
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for range b.N {
		w := NewWriter(nil, nil)
		exs := make([]*fetch.Exchange, n)
		for i := range exs {
			u := fmt.Sprintf("http://www.cs.example-university.edu/people/staff/member-%06d/index.html", i)
			exs[i] = &fetch.Exchange{URL: u, Date: at,
				Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page %d</p>", i))}
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, e := range exs {
			w.response(e)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/page")
		runtime.KeepAlive(w)
		runtime.KeepAlive(exs)
	}
}

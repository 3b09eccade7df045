package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
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
// which maxDigests bounds; the bytes of its URL are not counted, as the
// exchanges still hold them.
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

// remembered is what a Writer is to remember of the responses it
// archived: a map by payload digest and a map by URL, each forgotten
// whole when about to take more than max keys.
type remembered struct {
	max         int
	seen, byURL map[string]origin
	forgot      int
}

func (m *remembered) add(o origin) {
	for _, x := range []map[string]origin{m.seen, m.byURL} {
		if len(x) >= m.max {
			clear(x)
			m.forgot++
		}
	}
	m.seen[o.digest] = o
	m.byURL[o.uri] = o
}

// TestWriter_refersToOrigin writes thousands of fetches of a few URLs
// with a few payloads, and checks that every revisit record, of an
// identical payload or written by WriteRevisit, refers to the response
// record that archived the payload or the URL last: the same
// WARC-Refers-To, WARC-Refers-To-Target-URI, WARC-Refers-To-Date and
// WARC-Payload-Digest; also past the bound, with the bound lowered.
func TestWriter_refersToOrigin(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	fractions := []time.Duration{0, 0, 1500 * time.Microsecond, time.Microsecond, 250 * time.Nanosecond, time.Second - 1}
	for _, max := range []int{maxDigests, 30, 3} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, uint64(max)))
			d, err := warc.OpenDir(ctx, warc.DirConfig{Path: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			w := NewWriter(d, []string{"course"})
			w.mem = newMemory(max)
			// ops holds the pages written and, for WriteRevisit, its
			// arguments and answer.
			type revisit struct {
				checked, original string
				date              time.Time
				notModified, ok   bool
			}
			type op struct {
				p *crawler.Page
				r *revisit
			}
			var ops []op
			for i := range 3000 {
				at := base.Add(time.Duration(i)*time.Second + fractions[rnd.IntN(len(fractions))])
				u := fmt.Sprintf("http://a.test/%d", rnd.IntN(40))
				far := i >= 100 && i <= 102 // an origin dated past what int64 microseconds count
				if far {
					u = "http://a.test/far"
				}
				if i == 100 {
					at = time.Date(300000, 1, 2, 3, 4, 5, 6000, time.UTC)
				}
				if i == 101 || !far && rnd.IntN(5) == 0 {
					r := &revisit{checked: u, original: u, date: at, notModified: rnd.IntN(2) == 0}
					if rnd.IntN(4) == 0 {
						r.checked += "?again"
					}
					if rnd.IntN(8) == 0 {
						r.original = "http://a.test/never"
					}
					if far {
						r.checked, r.original, r.notModified = u, u, false
					}
					ok, err := w.WriteRevisit(ctx, r.checked, r.original, r.date, r.notModified)
					if err != nil {
						t.Fatal(err)
					}
					r.ok = ok
					ops = append(ops, op{r: r})
					continue
				}
				p := page(u[len("http://a.test"):], "")
				e := p.Exchanges[0]
				e.Date = at
				body := fmt.Sprintf("<p>payload %d</p>", rnd.IntN(60))
				if far {
					body = "<p>far</p>"
				}
				switch n := rnd.IntN(20); {
				case far:
					e.Response = []byte("HTTP/1.1 200 OK\r\n\r\n" + body)
				case n == 0:
					e.Response = []byte("HTTP/1.1 404 Not Found\r\n\r\n" + body)
				case n == 1:
					e.Response, e.Truncated = []byte("HTTP/1.1 200 OK\r\n\r\n"+body[:5]), true
				case n == 2:
					e.Response = []byte("HTTP/1.1 200 OK\r\n\r\n")
				default:
					e.Response = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body)
				}
				if !far && rnd.IntN(10) == 0 {
					from := &fetch.Exchange{URL: u + "/", Date: at, Request: e.Request,
						Response: []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: " + u + "\r\n\r\n")}
					p.Exchanges = []*fetch.Exchange{from, e}
				}
				if err := w.WritePage(ctx, p); err != nil {
					t.Fatal(err)
				}
				ops = append(ops, op{p: p})
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			recs := readRecords(t, d)
			next := func(typ string) *warc.Record {
				t.Helper()
				if len(recs) == 0 || recs[0].Type() != typ {
					t.Fatalf("no %s record next", typ)
				}
				r := recs[0]
				recs = recs[1:]
				return r
			}
			refersTo := func(r *warc.Record, o origin, digest string) {
				t.Helper()
				got := origin{r.Header.Get("WARC-Refers-To"), r.Header.Get("WARC-Refers-To-Target-URI"), r.Header.Get("WARC-Refers-To-Date"), r.Header.Get("WARC-Payload-Digest")}
				if want := (origin{o.id, o.uri, o.date, digest}); got != want {
					t.Fatalf("revisit of %s refers to %+v, want %+v", r.TargetURI(), got, want)
				}
			}
			m := &remembered{max: max, seen: map[string]origin{}, byURL: map[string]origin{}}
			var identical, notModified, unchanged, none, fraction, whole, farOrigin int
			for _, op := range ops {
				if r := op.r; r != nil {
					o, ok := m.byURL[r.original]
					if ok != r.ok {
						t.Fatalf("WriteRevisit of %s: %v, want %v", r.original, r.ok, ok)
					}
					if !ok {
						none++
						continue
					}
					rec := next(warc.TypeRevisit)
					if rec.TargetURI() != r.checked || rec.Header.Get("WARC-Date") != warc.FormatDate(r.date) {
						t.Fatalf("revisit %v, want of %s at %s", rec.Header, r.checked, warc.FormatDate(r.date))
					}
					if r.notModified {
						notModified++
						refersTo(rec, o, "")
					} else {
						unchanged++
						refersTo(rec, o, o.digest)
					}
					continue
				}
				for _, e := range op.p.Exchanges {
					next(warc.TypeRequest)
					head, body := splitHTTP(e.Response)
					digest := warc.Digest(body)
					kept := head[9] == '2' && len(body) > 0 && !e.Truncated
					if o, ok := m.seen[digest]; ok && kept {
						identical++
						refersTo(next(warc.TypeRevisit), o, digest)
						continue
					}
					r := next(warc.TypeResponse)
					if kept {
						o := origin{r.ID(), r.TargetURI(), r.Header.Get("WARC-Date"), r.Header.Get("WARC-Payload-Digest")}
						if strings.Contains(o.date, ".") {
							fraction++
						} else {
							whole++
						}
						if strings.HasPrefix(o.date, "300000-") {
							farOrigin++
						}
						m.add(o)
					}
				}
				next(warc.TypeMetadata)
			}
			if len(recs) > 0 {
				t.Fatalf("%d records more than written", len(recs))
			}
			t.Logf("%d identical-payload revisits, %d not-modified and %d unchanged revisits, %d revisits without origin; %d origins dated with a fraction of a second, %d without; forgotten %d times",
				identical, notModified, unchanged, none, fraction, whole, m.forgot)
			if identical == 0 || notModified == 0 || unchanged == 0 || none == 0 || fraction == 0 || whole == 0 || farOrigin != 1 || (m.forgot == 0) != (max == maxDigests) {
				t.Errorf("a case is missing")
			}
		})
	}
}

// readRecords reads the records of d's files but warcinfo.
func readRecords(t *testing.T, d *warc.Dir) []*warc.Record {
	t.Helper()
	files, err := d.Files()
	if err != nil {
		t.Fatal(err)
	}
	var recs []*warc.Record
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rd := warc.NewReader(bytes.NewReader(data))
		for {
			r, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Type() != warc.TypeWarcinfo {
				recs = append(recs, r)
			}
		}
	}
	return recs
}

// TestWriter_WritePage_largeFetched: a page fetched with its raw exchange
// kept, long enough for the fetcher to hold its response compressed
// only, is archived with the response as the server sent it.
func TestWriter_WritePage_largeFetched(t *testing.T) {
	body := bytes.Repeat([]byte("<p>a large page about web crawling</p>\n"), 3<<20/39)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer s.Close()
	f, err := fetch.New(fetch.Config{KeepRaw: true, IgnoreRobots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	u := urlnorm.MustParse(s.URL + "/large")
	res, err := f.Fetch(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Exchanges) != 1 || res.Exchanges[0].Response != nil {
		t.Fatalf("%d exchanges; want one, held compressed only", len(res.Exchanges))
	}
	d, err := warc.OpenDir(ctx, warc.DirConfig{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := &crawler.Page{URL: u, FinalURL: u, Topic: "course", Status: 200, FetchedAt: time.Now(), Exchanges: res.Exchanges}
	if err := NewWriter(d, []string{"course"}).WritePage(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range readRecords(t, d) {
		if r.Type() != warc.TypeResponse {
			continue
		}
		head, got := splitHTTP(r.Block)
		if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 OK\r\n")) || !bytes.Equal(got, body) || r.Header.Get("WARC-Payload-Digest") != warc.Digest(body) {
			t.Errorf("response record: head %q, body of %d bytes (want %d, equal %v)", head, len(got), len(body), bytes.Equal(got, body))
		}
		return
	}
	t.Fatal("no response record")
}

// TestStore_crawlerBehaviour runs the crawler's behaviour suite with every
// crawl's store wrapped in a Store: archiving changes nothing of what a
// crawl fetches, resumed crawls included (the crawler finds the wrapped
// store's optional interfaces through Unwrap).
func TestStore_crawlerBehaviour(t *testing.T) {
	crawlertest.RunWrapped(t, func(*testing.T) crawlertest.Store { return crawlertest.NewMemStore() },
		func(t *testing.T, s crawler.Store) crawler.Store {
			d, err := warc.OpenDir(context.Background(), warc.DirConfig{Path: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return &Store{Store: s, W: NewWriter(d, nil), DropRaw: true}
		})
}

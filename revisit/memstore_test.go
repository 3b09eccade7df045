package revisit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/urlnorm"
)

// memStore is an in-memory Store whose pages all have the same old text.
type memStore struct {
	pages   []revisit.Page
	oldText string
	mu      sync.Mutex
	checks  int
}

func (m *memStore) RevisitPages(_ context.Context, _, after int64, limit int) ([]revisit.Page, error) {
	var out []revisit.Page
	for _, p := range m.pages {
		if p.ID > after && len(out) < limit {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *memStore) VersionText(context.Context, int64, int) (string, error) { return m.oldText, nil }

func (m *memStore) RecordCheck(context.Context, *revisit.Check) error {
	m.mu.Lock()
	m.checks++
	m.mu.Unlock()
	return nil
}

// staticFetcher answers every request with the same result.
type staticFetcher struct{ res fetch.Result }

func (f staticFetcher) Fetch(_ context.Context, u urlnorm.URL, _ http.Header) (*fetch.Result, error) {
	r := f.res
	r.URL, r.FinalURL = u, u
	return &r, nil
}

// words returns n words of which every 8th differs between variants.
func words(n, variant int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i%8 == 7 {
			fmt.Fprintf(&b, "v%dw%d", variant, i%97)
		} else {
			fmt.Fprintf(&b, "w%d", i%211)
		}
	}
	return b.String()
}

// BenchmarkRun measures checks per second without network or disk: a
// changed 2,000-word page (hash, text extraction, IED) and a 304.
func BenchmarkRun(b *testing.B) {
	const nPages = 64
	mk := func() *memStore {
		m := &memStore{oldText: words(2000, 0)}
		for i := range nPages {
			m.pages = append(m.pages, revisit.Page{ID: int64(i + 1), URL: urlnorm.MustParse(fmt.Sprintf("http://a.test/p%d", i)), Version: 1, ContentHash: "old"})
		}
		return m
	}
	for _, tc := range []struct {
		name string
		res  fetch.Result
	}{
		{"changed-2000-words", fetch.Result{Status: 200, ContentType: "text/html; charset=utf-8", Header: http.Header{},
			Body: []byte("<html><body><p>" + words(2000, 1) + "</p></body></html>")}},
		{"not-modified", fetch.Result{Status: 304, Header: http.Header{}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := staticFetcher{res: tc.res}
			b.ReportAllocs()
			for b.Loop() {
				m := mk()
				sum, err := revisit.Run(context.Background(), revisit.Config{Crawl: 1, Costs: change.DefaultCosts(), Workers: 1,
					Now: func() time.Time { return time.Unix(0, 0) }}, m, f)
				if err != nil || sum.Checked != nPages {
					b.Fatalf("%+v %v", sum, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nPages), "ns/check")
		})
	}
}

// failingStore fails every RecordCheck.
type failingStore struct{ memStore }

func (f *failingStore) RecordCheck(context.Context, *revisit.Check) error {
	return errors.New("disk full")
}

// logStore keeps the checks it is given.
type logStore struct {
	memStore
	log []revisit.Check
}

func (l *logStore) RecordCheck(_ context.Context, c *revisit.Check) error {
	l.mu.Lock()
	l.log = append(l.log, *c)
	l.mu.Unlock()
	return nil
}

func onePage() memStore {
	return memStore{oldText: "a b c", pages: []revisit.Page{{ID: 7, URL: urlnorm.MustParse("http://a.test/x"), Version: 3, ContentHash: "old"}}}
}

func TestRun_storeFailure(t *testing.T) {
	st := &failingStore{memStore: onePage()}
	f := staticFetcher{res: fetch.Result{Status: 304, Header: http.Header{}}}
	sum, err := revisit.Run(context.Background(), revisit.Config{Crawl: 1}, st, f)
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "http://a.test/x") || sum.Checked != 0 {
		t.Errorf("Run with a failing store = %+v, %v; want an error naming the page and the cause", sum, err)
	}
}

func TestRun_unreadableBody(t *testing.T) {
	st := &logStore{memStore: onePage()}
	f := staticFetcher{res: fetch.Result{Status: 200, ContentType: "text/html", Header: http.Header{}, Body: []byte("<p>a\x00b</p>")}}
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	sum, err := revisit.Run(context.Background(), revisit.Config{Crawl: 1, Now: func() time.Time { return at }}, st, f)
	if err != nil {
		t.Fatal(err)
	}
	if sum != (revisit.Summary{Checked: 1, Failed: 1}) || len(st.log) != 1 {
		t.Fatalf("summary %+v, %d checks; want one failed check", sum, len(st.log))
	}
	c := st.log[0]
	if !strings.HasPrefix(c.Failure, "parse: ") || c.Changed || c.New != nil || c.Version != 3 || c.Status != 200 || !c.CheckedAt.Equal(at) || c.PageID != 7 {
		t.Errorf("check %+v, want a parse failure of version 3 at %s", c, at)
	}
}

func TestRun_progress(t *testing.T) {
	st := &logStore{memStore: onePage()}
	f := staticFetcher{res: fetch.Result{Status: 200, ContentType: "text/html", Header: http.Header{"Etag": {`"z"`}}, Body: []byte("<p>a b d c</p>")}}
	var buf strings.Builder
	sum, err := revisit.Run(context.Background(), revisit.Config{Crawl: 1, Costs: change.Costs{S: 0.5, T: 0.5}, Progress: &buf}, st, f)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\rchecked 1: changed 1, unchanged 0, not modified 0, failed 0 | not due 0   \n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("progress %q, want it to end with %q", buf.String(), want)
	}
	if sum.Changed != 1 || len(st.log) != 1 || st.log[0].New == nil {
		t.Fatalf("summary %+v, log %+v", sum, st.log)
	}
	c := st.log[0]
	want := revisit.Version{Number: 4, FetchedAt: c.CheckedAt, Status: 200, Size: 14, ContentType: "text/html", ETag: `"z"`,
		ContentHash: c.New.ContentHash, Text: "a b d c", Change: change.Result{Ops: change.Ops{Add: 1}, Delta: 1, Distance: 0.25},
		Costs: change.Costs{S: 0.5, T: 0.5}}
	if *c.New != want || c.Version != 4 || c.UpdateSize != 1 || c.Size != 14 || len(c.New.ContentHash) != 64 {
		t.Errorf("new version %+v (check %+v), want %+v", *c.New, c, want)
	}
}

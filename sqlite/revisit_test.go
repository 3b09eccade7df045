package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/revisit/revisittest"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestStore_revisitBehaviour runs the revisit suite, which the in-memory
// and PostgreSQL stores pass too, on SQLite.
func TestStore_revisitBehaviour(t *testing.T) {
	revisittest.Run(t, func(t *testing.T) revisittest.Store {
		s, _ := open(t)
		return s
	})
}

// TestStore_watchBehaviour runs the scheduler's suite, which the
// in-memory and PostgreSQL stores pass too, on SQLite.
func TestStore_watchBehaviour(t *testing.T) {
	revisittest.RunWatch(t, func(t *testing.T) revisittest.WatchStore {
		s, _ := open(t)
		return s
	})
}

// crawledStore holds one crawl of n pages /p0…/p{n-1} fetched at t0, the
// odd ones with an ETag; /bad failed.
func crawledStore(t *testing.T, n int, t0 time.Time) (*Store, int64) {
	t.Helper()
	ctx := context.Background()
	s, st := openBFS(t)
	var pages []*crawler.Page
	for i := range n {
		p := &crawler.Page{URL: u(fmt.Sprintf("/p%d", i)), Status: 200, FetchedAt: t0, Size: 10, ContentType: "text/html",
			ContentHash: fmt.Sprintf("h%d", i), Title: "t", Text: fmt.Sprintf("page %d text", i)}
		if i%2 == 1 {
			p.ETag = fmt.Sprintf(`"e%d"`, i)
			p.Modified = "Mon, 04 Mar 2024 08:00:00 GMT"
		}
		pages = append(pages, p)
		if i == 1 {
			pages = append(pages, &crawler.Page{URL: u("/bad"), Status: 404, FetchedAt: t0, Failure: "status: HTTP 404"})
		}
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	return s, st.ID
}

func allRevisitPages(t *testing.T, s *Store, crawl int64, limit int) []revisit.Page {
	t.Helper()
	var out []revisit.Page
	var after int64
	for {
		ps, err := s.RevisitPages(context.Background(), crawl, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ps...)
		if len(ps) < limit {
			return out
		}
		after = ps[len(ps)-1].ID
	}
}

func TestStore_RevisitPages(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 123, time.UTC)
	s, crawl := crawledStore(t, 7, t0)
	for _, limit := range []int{1, 3, 7, 100} {
		ps := allRevisitPages(t, s, crawl, limit)
		if len(ps) != 7 {
			t.Fatalf("limit %d: %d pages, want the 7 without failure", limit, len(ps))
		}
		for i, p := range ps {
			want := revisit.Page{ID: p.ID, URL: u(fmt.Sprintf("/p%d", i)), Version: 1, ContentHash: fmt.Sprintf("h%d", i), CheckedAt: t0, FetchedAt: t0, FinalURL: u(fmt.Sprintf("/p%d", i))}
			if i%2 == 1 {
				want.ETag = fmt.Sprintf(`"e%d"`, i)
				want.Modified = "Mon, 04 Mar 2024 08:00:00 GMT"
			}
			if p != want || (i > 0 && p.ID <= ps[i-1].ID) {
				t.Errorf("limit %d: page %d = %+v, want %+v in ID order", limit, i, p, want)
			}
		}
	}
	if ps, err := s.RevisitPages(context.Background(), crawl+1, 0, 10); err != nil || len(ps) != 0 {
		t.Errorf("another crawl: %d pages, %v; want none", len(ps), err)
	}
}

func TestStore_RecordCheck(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	s, crawl := crawledStore(t, 2, t0)
	ps := allRevisitPages(t, s, crawl, 10)
	p := ps[1]
	t1, t2 := t0.Add(time.Hour), t0.Add(90*time.Minute+500*time.Millisecond)

	// An unchanged check changes the check time only.
	if err := s.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t1, Status: 304, Version: 1}); err != nil {
		t.Fatal(err)
	}
	// A change stores version 2 and copies the crawled page as version 1.
	ch := change.IED(change.Words("page 1 text"), change.Words("page one text"), change.DefaultCosts())
	v2 := &revisit.Version{Number: 2, FetchedAt: t2, Status: 200, Size: 20, ContentType: "text/html", ETag: `"n"`,
		Modified: "Tue, 05 Mar 2024 08:00:00 GMT", ContentHash: "hn", Title: "t2", Text: "page one text", Change: ch, Costs: change.DefaultCosts()}
	if err := s.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t2, Status: 200, Size: 20,
		UpdateSize: ch.Delta, Changed: true, Version: 2, New: v2}); err != nil {
		t.Fatal(err)
	}
	// A new version must follow the latest.
	bad := *v2
	bad.Number = 4
	err := s.RecordCheck(ctx, &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t2, Changed: true, Version: 4, New: &bad})
	if err == nil {
		t.Error("version 4 after 2 was stored")
	}
	err = s.RecordCheck(ctx, &revisit.Check{PageID: 9999, CheckedAt: t2, Changed: true, Version: 2, New: v2})
	if !errors.Is(err, ErrNoVersion) {
		t.Errorf("new version of a missing page: %v, want ErrNoVersion", err)
	}

	got := allRevisitPages(t, s, crawl, 10)
	want := revisit.Page{ID: p.ID, URL: p.URL, Version: 2, ETag: `"n"`, Modified: "Tue, 05 Mar 2024 08:00:00 GMT", ContentHash: "hn", CheckedAt: t2, FetchedAt: p.FetchedAt, FinalURL: p.FinalURL}
	if got[1] != want || p.FetchedAt.IsZero() {
		t.Errorf("after a change: %+v, want %+v", got[1], want)
	}
	if got[0].CheckedAt != t0 || got[0].Version != 1 {
		t.Errorf("unchecked page: %+v, want version 1 checked at %s", got[0], t0)
	}

	vs, err := s.PageVersions(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	v1 := revisit.Version{Number: 1, FetchedAt: t0, Status: 200, Size: 10, ContentType: "text/html", ETag: `"e1"`,
		Modified: "Mon, 04 Mar 2024 08:00:00 GMT", ContentHash: "h1", Title: "t", Text: "page 1 text"}
	if len(vs) != 2 || vs[0] != v1 || vs[1] != *v2 {
		t.Errorf("versions:\n%+v\nwant\n%+v\n%+v", vs, v1, *v2)
	}
	for _, tc := range []struct {
		version int
		text    string
	}{{1, "page 1 text"}, {2, "page one text"}} {
		if txt, err := s.VersionText(ctx, p.ID, tc.version); err != nil || txt != tc.text {
			t.Errorf("VersionText(%d) = %q, %v; want %q", tc.version, txt, err, tc.text)
		}
	}
	if _, err := s.VersionText(ctx, p.ID, 3); !errors.Is(err, ErrNoVersion) {
		t.Errorf("VersionText(3) error %v, want ErrNoVersion", err)
	}
	// A never-changed page reads as its crawled version.
	if txt, err := s.VersionText(ctx, ps[0].ID, 1); err != nil || txt != "page 0 text" {
		t.Errorf("VersionText of an unchanged page = %q, %v", txt, err)
	}
	if vs, err := s.PageVersions(ctx, ps[0].ID); err != nil || len(vs) != 1 || vs[0].Text != "page 0 text" || vs[0].Number != 1 || !vs[0].FetchedAt.Equal(t0) {
		t.Errorf("PageVersions of an unchanged page = %+v, %v", vs, err)
	}

	var log []revisit.Check
	if err := s.EachCheck(ctx, crawl, func(c *revisit.Check) error { log = append(log, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	wantLog := []revisit.Check{
		{PageID: p.ID, URL: p.URL, CheckedAt: t1, Status: 304, Version: 1},
		{PageID: p.ID, URL: p.URL, CheckedAt: t2, Status: 200, Size: 20, UpdateSize: ch.Delta, Changed: true, Version: 2},
	}
	if len(log) != 2 || log[0] != wantLog[0] || log[1] != wantLog[1] {
		t.Errorf("change log:\n%+v\nwant\n%+v", log, wantLog)
	}
}

func TestStore_EachCheck_batches(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	s, crawl := crawledStore(t, 3, t0)
	ps := allRevisitPages(t, s, crawl, 10)
	const n = 1100 // more than two read batches
	for i := range n {
		p := ps[i%len(ps)]
		c := &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t0.Add(time.Duration(i) * time.Minute), Status: 200, Version: 1}
		if i%5 == 0 {
			c.Status, c.Failure = 0, "network: refused"
		}
		if err := s.RecordCheck(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	err := s.EachCheck(ctx, crawl, func(c *revisit.Check) error {
		if want := t0.Add(time.Duration(i) * time.Minute); !c.CheckedAt.Equal(want) || (c.Failure != "") != (i%5 == 0) {
			return fmt.Errorf("row %d: %+v, want check time %s", i, c, want)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Errorf("EachCheck read %d rows, err %v; want %d", i, err, n)
	}
	// The latest check time of each page reads back exactly.
	for j, p := range allRevisitPages(t, s, crawl, 10) {
		last := n - 1 - (n-1-j)%len(ps)
		if want := t0.Add(time.Duration(last) * time.Minute); !p.CheckedAt.Equal(want) {
			t.Errorf("page %d checked at %s, want %s", j, p.CheckedAt, want)
		}
	}
}

func BenchmarkStore_RecordCheck(b *testing.B) {
	ctx := context.Background()
	s, st := openBFS(b)
	pu := urlnorm.MustParse("http://a.test/p")
	if err := s.Commit(ctx, st.ID, []*crawler.Page{{URL: pu, Status: 200, FetchedAt: time.Now(), Text: "x"}}, nil); err != nil {
		b.Fatal(err)
	}
	var id int64
	if err := s.DB().QueryRow(`SELECT id FROM pages`).Scan(&id); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	b.ResetTimer()
	for i := range b.N {
		if err := s.RecordCheck(ctx, &revisit.Check{PageID: id, URL: pu, CheckedAt: t0.Add(time.Duration(i)), Status: 304, Version: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStore_RecordScheduledCheck_validators: a scheduled check of an
// unchanged page keeps the new validators the server sent, as RecordCheck
// does, so that the next check is conditional on them.
func TestStore_RecordScheduledCheck_validators(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	s, crawl := crawledStore(t, 2, t0)
	p := allRevisitPages(t, s, crawl, 10)[1]
	t1 := t0.Add(time.Hour)
	v := &revisit.Validators{ETag: `"new"`, Modified: "Tue, 05 Mar 2024 08:00:00 GMT"}
	c := &revisit.Check{PageID: p.ID, URL: p.URL, CheckedAt: t1, Status: 200, Size: 10, Version: 1, Validators: v}
	if err := s.RecordScheduledCheck(ctx, c, revisit.Due{Next: t1.Add(24 * time.Hour), Rate: 1, Group: "G1", Hour: 9}); err != nil {
		t.Fatal(err)
	}
	got := allRevisitPages(t, s, crawl, 10)[1]
	if got.ETag != v.ETag || got.Modified != v.Modified || got.Version != 1 || !got.CheckedAt.Equal(t1) {
		t.Errorf("after a scheduled check with new validators: %+v, want version 1 with ETag %s and Last-Modified %s checked at %s",
			got, v.ETag, v.Modified, t1)
	}
}

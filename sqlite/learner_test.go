package sqlite

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestStore_Rescore(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"t", "u"}, Topics: []string{"t", "u"}, Seeds: []urlnorm.URL{u("/seed")}})
	if err != nil {
		t.Fatal(err)
	}
	popAll(t, s, st.ID, "t", crawler.BestFirst)
	push := []crawler.Entry{{Topic: "t", URL: u("/a"), Score: 0.1}, {Topic: "t", URL: u("/b"), Score: 0.9}, {Topic: "t", URL: u("/c"), Score: 0.5},
		{Topic: "u", URL: u("/a"), Score: 0.2}}
	if err := s.Commit(ctx, st.ID, nil, push); err != nil {
		t.Fatal(err)
	}
	// /a rises above /b on t only; /gone waits nowhere and is ignored.
	ups := []crawler.Entry{{Topic: "t", URL: u("/a"), Score: 0.95}, {Topic: "t", URL: u("/gone"), Score: 1}}
	if err := s.Rescore(ctx, st.ID, ups); err != nil {
		t.Fatal(err)
	}
	if got, want := popAll(t, s, st.ID, "t", crawler.BestFirst), []string{"/a", "/b", "/c"}; !slices.Equal(got, want) {
		t.Errorf("t after rescore: %v, want %v", got, want)
	}
	var score float64
	if err := s.db.QueryRowContext(ctx, `SELECT score FROM frontier WHERE topic = 'u'`).Scan(&score); err != nil || score != 0.2 {
		t.Errorf("u's entry: score %v (%v), want 0.2 unchanged", score, err)
	}
}

func TestStore_SaveLearner(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"t"}, Topics: []string{"t"}, Seeds: []urlnorm.URL{u("/seed")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if st.Learner != nil {
		t.Errorf("new crawl has learner state %q", st.Learner)
	}
	for _, state := range []string{`{"v":1}`, `{"v":2}`} {
		if err := s.SaveLearner(ctx, st.ID, []byte(state)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	_, st2 := reopen(t, path, spec)
	if string(st2.Learner) != `{"v":2}` {
		t.Errorf("resumed learner state %q, want the last saved", st2.Learner)
	}
}

// TestStore_SaveLearner_inParts: a large state (a learner's memory) is
// kept in rows of at most maxLearnerPart bytes, so that SQLite never
// holds more than a part of it at once, and read back whole; a smaller
// state saved after it leaves none of its parts behind.
func TestStore_SaveLearner_inParts(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	spec := crawler.CrawlSpec{Name: "x", Strategy: crawler.StrategyLink, Stacks: []string{"t"}, Topics: []string{"t"}, Seeds: []urlnorm.URL{u("/seed")}}
	st, err := s.OpenCrawl(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	state := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7) ^ seed
		}
		return b
	}
	for _, tt := range []struct {
		size, parts int
	}{
		{5*maxLearnerPart + 123, 6},
		{2*maxLearnerPart + 1, 3},
		{maxLearnerPart, 1},
	} {
		want := state(tt.size, byte(tt.parts))
		if err := s.SaveLearner(ctx, st.ID, want); err != nil {
			t.Fatal(err)
		}
		var parts, largest int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*), MAX(length(data)) FROM learner_parts WHERE crawl_id = ?`, st.ID).Scan(&parts, &largest); err != nil {
			t.Fatal(err)
		}
		if parts != tt.parts || largest > maxLearnerPart {
			t.Errorf("a state of %d bytes: %d parts, the largest %d bytes; want %d of at most %d", tt.size, parts, largest, tt.parts, maxLearnerPart)
		}
		got, err := s.learnerState(ctx, st.ID)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("a state of %d bytes read back as %d bytes (%v), equal: %t", tt.size, len(got), err, slices.Equal(got, want))
		}
	}
	s.Close()
	_, st2 := reopen(t, path, spec)
	if want := state(maxLearnerPart, 1); !slices.Equal(st2.Learner, want) {
		t.Errorf("resumed learner state of %d bytes, want the last saved (%d bytes)", len(st2.Learner), len(want))
	}
}

// benchLinkCrawl opens a store in a temporary folder, closed when the
// benchmark ends, and a link crawl of the one topic "robots".
func benchLinkCrawl(b *testing.B) (*Store, crawler.CrawlState) {
	s, _ := open(b)
	st, err := s.OpenCrawl(context.Background(), crawler.CrawlSpec{Name: "b", Strategy: crawler.StrategyLink, Stacks: []string{"robots"}, Topics: []string{"robots"}})
	if err != nil {
		b.Fatal(err)
	}
	return s, st
}

// BenchmarkStore_Rescore measures the store's half of a rescore of a
// full stack: new scores for 100,000 waiting links, in one transaction.
func BenchmarkStore_Rescore(b *testing.B) {
	ctx := context.Background()
	s, st := benchLinkCrawl(b)
	const n = 100_000
	es := make([]crawler.Entry, n)
	for i := range es {
		es[i] = crawler.Entry{Topic: "robots", URL: u(fmt.Sprintf("/p%d/l%d.html", i/50, i%50)), Depth: 2, Score: 0.5}
	}
	if err := s.Commit(ctx, st.ID, nil, es); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		for k := range es {
			es[k].Score = float64((k+i)%1000) / 1000
		}
		if err := s.Rescore(ctx, st.ID, es); err != nil {
			b.Fatal(err)
		}
	}
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestLearnt_noState: a crawl that saved no learner's state is told why
// from the settings it recorded: which crawler ran without a learner, or
// a learner that has not saved yet.
func TestLearnt_noState(t *testing.T) {
	for _, tt := range []struct {
		strategy crawler.Strategy
		config   string
		want     string
	}{
		{crawler.StrategyBFS, `{"strategy":"bfs","learn":false}`, `crawl "c" has no learner to explain: it is a breadth-first crawl (--strategy bfs)`},
		{crawler.StrategyPage, `{"strategy":"page","learn":false}`, `crawl "c" has no learner to explain: its links were valued by the score of their page (--strategy page)`},
		{crawler.StrategyLink, `{"strategy":"link","learn":false}`, `crawl "c" has no learner to explain: it ran with --learn=false or --preset paper`},
		{crawler.StrategyLink, `{"strategy":"link","learn":true}`, `crawl "c" has a learner that saved no state yet: it saves every few hundred pages and when the crawl stops, and this crawl ended before its first save (killed)`},
		{crawler.StrategyLink, `{}`, `crawl "c" saved no learner's state: it ran without a learner (--learn=false, --preset paper, --strategy bfs or page), or ended before its first save`},
	} {
		db := committedStore(t, crawler.CrawlSpec{Name: "c", Strategy: tt.strategy, Topics: []string{"course"}, Stacks: []string{"course"}, Config: tt.config}, nil)
		_, err := runScent(t, "learnt", "--db", db)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.config, err, tt.want)
		}
	}
}

// TestLearnt_fetchesObserved: the learner's count is of fetches, failed
// ones included, and says so: a crawl of one page and one failed fetch
// is not said to have shown the learner two pages.
func TestLearnt_fetchesObserved(t *testing.T) {
	ctx := context.Background()
	l, err := learn.New([]string{"course"}, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ok := &crawler.Page{URL: urlnorm.MustParse("http://x.test/a"), Status: 200, Topic: "course",
		Scores: map[string]float64{"course": 0.9}, Relevant: map[string]bool{"course": true}}
	failed := &crawler.Page{URL: urlnorm.MustParse("http://x.test/b"), Status: 404, Failure: "status: HTTP 404", Topic: "course"}
	for _, p := range []*crawler.Page{ok, failed} {
		l.Observe(p, crawler.Entry{Topic: "course", URL: p.URL}, nil)
	}
	state, err := l.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	db := committedStore(t, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyLink, Topics: []string{"course"}, Stacks: []string{"course"},
		Config: `{"strategy":"link","learn":true}`}, []*crawler.Page{ok, failed})
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveLearner(ctx, 1, state); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out, err := runScent(t, "learnt", "--db", db)
	if want := `crawl "c": the learner observed 2 fetches (failed ones included);`; err != nil || !strings.HasPrefix(out, want) {
		t.Errorf("learnt: %v\n%s\nwant it to begin %q", err, out, want)
	}
}

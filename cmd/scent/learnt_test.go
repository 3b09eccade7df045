package main

import (
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
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

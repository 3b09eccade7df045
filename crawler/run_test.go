package crawler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestCrawler_Run_betweenRounds(t *testing.T) {
	// A course site of 30 pages, each linking to the next three.
	pages := make(map[string]string)
	for i := range 30 {
		var links strings.Builder
		for j := i + 1; j <= min(i+3, 29); j++ {
			fmt.Fprintf(&links, `<a href="/c%d">course syllabus %d</a> `, j, j)
		}
		pages[fmt.Sprintf("/c%d", i)] = `<html><body>course homework ` + links.String() + `</body></html>`
	}
	s := crawlertest.NewSite(t, pages, nil)
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	for _, lockstep := range []bool{true, false} {
		c, err := crawler.New(crawler.Config{Workers: 4, Lockstep: lockstep}, openStore(t), crawlertest.NewFetcher(t, fetch.Config{}), scorer)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/c0")}, "{}")
		if err != nil {
			t.Fatal(err)
		}
		if sum.Succeeded != 30 {
			t.Fatalf("lockstep %v: %d pages fetched, want 30", lockstep, sum.Succeeded)
		}
		switch {
		case lockstep && (sum.BetweenRounds <= 0 || sum.BetweenRounds > sum.Elapsed):
			t.Errorf("lockstep: %v between rounds of %v", sum.BetweenRounds, sum.Elapsed)
		case !lockstep && sum.BetweenRounds != 0:
			t.Errorf("not in lockstep: %v between rounds, want none", sum.BetweenRounds)
		}
	}
}

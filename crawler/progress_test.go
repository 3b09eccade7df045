package crawler_test

import (
	"context"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// sharedCounts wraps a store as a crawl shared with other processes
// that committed others (crawler.CrawlCounter): the pages committed
// through it and those.
type sharedCounts struct {
	crawler.Store
	mu           sync.Mutex
	mine, others crawler.CrawlCounts
}

func (s *sharedCounts) Unwrap() crawler.Store { return s.Store }

func (s *sharedCounts) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	if err := s.Store.Commit(ctx, crawl, pages, push); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pages {
		s.mine.Fetched++
		if p.Failure == "" {
			s.mine.Succeeded++
		}
		for t, rel := range p.Relevant {
			if rel {
				s.mine.Relevant[t]++
			}
		}
	}
	return nil
}

func (s *sharedCounts) CrawlCounts(context.Context, int64) (crawler.CrawlCounts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := crawler.CrawlCounts{Fetched: s.mine.Fetched + s.others.Fetched, Succeeded: s.mine.Succeeded + s.others.Succeeded,
		Relevant: map[string]int{}}
	for t, n := range s.mine.Relevant {
		c.Relevant[t] += n
	}
	for t, n := range s.others.Relevant {
		c.Relevant[t] += n
	}
	return c, nil
}

// TestCrawler_Run_progressCountsOtherProcesses: the progress of a crawl
// that other processes share counts their pages too, as the store counts
// them (crawler.CrawlCounter), not this process's alone.
func TestCrawler_Run_progressCountsOtherProcesses(t *testing.T) {
	s := crawlertest.NewSite(t, map[string]string{
		"/":   `<html><body><a href="/c1">course one</a> <a href="/c2">course two</a> <a href="/x">news</a> <a href="/gone">gone</a></body></html>`,
		"/c1": `<html><body>course syllabus homework</body></html>`,
		"/c2": `<html><body>course lectures syllabus</body></html>`,
		"/x":  `<html><body>news of the day</body></html>`,
	}, nil)
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course", "syllabus"}}, "course")
	st := &sharedCounts{Store: openStore(t), mine: crawler.CrawlCounts{Relevant: map[string]int{}},
		others: crawler.CrawlCounts{Fetched: 10, Succeeded: 7, Relevant: map[string]int{"course": 4}}}
	var lines []crawler.Progress
	cfg := crawler.Config{Strategy: crawler.StrategyBFS, Workers: 2, Lockstep: true,
		Progress: func(p crawler.Progress) { lines = append(lines, p) }}
	c, err := crawler.New(cfg, st, crawlertest.NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}")
	if err != nil {
		t.Fatal(err)
	}
	last := lines[len(lines)-1]
	if !last.Final || last.Pages != sum.Succeeded+7 || last.Failed != sum.Total-sum.Succeeded+3 || last.Relevant[0] != sum.Relevant["course"]+4 {
		t.Errorf("last progress: pages %d, failed %d, relevant %v; want this process's %d, %d, %d and the others' 7, 3, 4",
			last.Pages, last.Failed, last.Relevant, sum.Succeeded, sum.Total-sum.Succeeded, sum.Relevant["course"])
	}
	if sum.Succeeded != 4 || sum.Total != 5 || sum.Relevant["course"] != 3 {
		t.Errorf("the crawl: %d pages, %d fetches, %v relevant; want 4, 5 and 3 (/, /c1, /c2)", sum.Succeeded, sum.Total, sum.Relevant)
	}
}

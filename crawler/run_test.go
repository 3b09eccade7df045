package crawler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
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

// linkingLearner scores every page by its length (PageScorer) and
// records what the crawler gives it.
type linkingLearner struct {
	mu       sync.Mutex
	links    map[string][]float64 // ScoreLink's Linking, by source path
	observed map[string][]float64 // Observe's Page.Linking, by path
}

func (l *linkingLearner) ScorePage(tokens []string) []float64 {
	return []float64{float64(len(tokens)) / 100}
}

func (l *linkingLearner) ScoreLink(lf *crawler.LinkFeatures, dst []float64) []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.links[lf.Source.Path()] = slices.Clone(lf.Linking)
	return append(dst, 0.5)
}

func (l *linkingLearner) Observe(p *crawler.Page, _ crawler.Entry, _ []crawler.Entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.observed[p.URL.Path()] = slices.Clone(p.Linking)
}

func (l *linkingLearner) Rescore() []crawler.Entry      { return nil }
func (l *linkingLearner) MarshalState() ([]byte, error) { return []byte("{}"), nil }
func (l *linkingLearner) RestoreState([]byte) error     { return nil }

// TestCrawler_Run_pageScorer: a learner that scores pages itself
// (PageScorer) sees each fetched page's score on the page it observes
// and with every link of the page it values.
func TestCrawler_Run_pageScorer(t *testing.T) {
	s := crawlertest.NewSite(t, map[string]string{
		"/":  `<html><body>course <a href="/a">course a</a> <a href="/b">course b</a></body></html>`,
		"/a": `<html><body>course one two three four <a href="/b">course b</a></body></html>`,
		"/b": `<html><body>course</body></html>`,
	}, nil)
	scorer := crawlertest.NewKeywordScorer(map[string][]string{"course": {"course"}}, "course")
	l := &linkingLearner{links: map[string][]float64{}, observed: map[string][]float64{}}
	c, err := crawler.New(crawler.Config{Workers: 2, Lockstep: true, Learner: l}, openStore(t), crawlertest.NewFetcher(t, fetch.Config{}), scorer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), []urlnorm.URL{s.URL("/")}, "{}"); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/a"} {
		got, seen := l.observed[path]
		if !seen || len(got) != 1 || got[0] <= 0 {
			t.Errorf("%s observed with Linking %v, want the page's score", path, got)
			continue
		}
		if !slices.Equal(l.links[path], got) {
			t.Errorf("links of %s valued with Linking %v, want the page's %v", path, l.links[path], got)
		}
	}
	if l.observed["/a"][0] <= l.observed["/b"][0] {
		t.Errorf("Linking %v of /a, %v of /b: want the longer page higher", l.observed["/a"], l.observed["/b"])
	}
}

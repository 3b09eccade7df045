package crawlertest

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// KeywordScorer is a small real crawler.Scorer: a text is on a topic
// when one of its tokens is among the topic's keywords.
type KeywordScorer struct {
	topics []string
	words  []map[string]bool
}

// NewKeywordScorer returns a scorer of the topics in order, each with
// its keywords; a text is on-topic (0.9, else 0.1) when it has one.
func NewKeywordScorer(topics map[string][]string, order ...string) *KeywordScorer {
	s := &KeywordScorer{topics: order}
	for _, t := range order {
		m := make(map[string]bool)
		for _, w := range topics[t] {
			m[w] = true
		}
		s.words = append(s.words, m)
	}
	return s
}

// Topics implements crawler.Scorer.
func (s *KeywordScorer) Topics() []string { return s.topics }

// Threshold implements crawler.Scorer: 0.5 for every topic.
func (s *KeywordScorer) Threshold(int) float64 { return 0.5 }

// ScorePage implements crawler.Scorer like Score.
func (s *KeywordScorer) ScorePage(tokens []string, dst []float64) []float64 {
	return s.Score(tokens, dst)
}

// Score implements crawler.Scorer.
func (s *KeywordScorer) Score(tokens []string, dst []float64) []float64 {
	dst = dst[:0]
	for _, m := range s.words {
		hit := 0
		for _, t := range tokens {
			if m[t] {
				hit++
			}
		}
		if hit > 0 {
			dst = append(dst, 0.9)
		} else {
			dst = append(dst, 0.1)
		}
	}
	return dst
}

// Site is an httptest web site whose pages are given as path → HTML. It
// counts the requests for every path.
type Site struct {
	Server *httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	pages  map[string]string
	extra  map[string]http.HandlerFunc
}

// NewSite starts a site serving pages, with handlers for the paths of
// extra (which take precedence); it stops with the test.
func NewSite(t *testing.T, pages map[string]string, extra map[string]http.HandlerFunc) *Site {
	s := &Site{hits: make(map[string]int), pages: pages, extra: extra}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.RequestURI()]++
		s.mu.Unlock()
		if h, ok := s.extra[r.URL.Path]; ok {
			h(w, r)
			return
		}
		body, ok := s.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Server.Close)
	return s
}

// URL is the absolute URL of path p on the site.
func (s *Site) URL(p string) urlnorm.URL { return urlnorm.MustParse(s.Server.URL + p) }

// Requests is how many requests the site answered in all.
func (s *Site) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}

// Hits is how many times path p (with its query) was requested.
func (s *Site) Hits(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// Paths is how many times each path (with its query) was requested.
func (s *Site) Paths() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.hits)
}

// NewFetcher returns a fetcher of cfg closed with the test.
func NewFetcher(t *testing.T, cfg fetch.Config) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

package crawler

import "github.com/scent-crawler/scent/urlnorm"

// strategy decides what a fetched page's links push on the frontier.
// Adding a strategy is one type here (and its name in config.go).
type strategy interface {
	// scoresLinks reports whether each link's context is scored by the
	// link model (Scorer.Score, or a Learner's value).
	scoresLinks() bool
	// push appends to dst the entries for one followable link of page p:
	// its target u, depth links from a seed, with vals its best score per
	// topic (nil when links are not scored). A page's links are pushed
	// in reverse document order.
	push(dst []Entry, p *Page, u urlnorm.URL, depth int, vals []float64) []Entry
	// arrange puts a page's entries, the sitemaps' and then its links' as
	// push appended them, in the order the frontier receives them.
	arrange(push []Entry) []Entry
}

// newStrategy returns the strategy of cfg for a scorer of topics.
func newStrategy(cfg Config, scorer Scorer, topics []string) strategy {
	switch cfg.Strategy {
	case StrategyBFS:
		return bfs{}
	case StrategyPage:
		return page{topics: topics}
	}
	return link{topics: topics, scorer: scorer, tunnel: cfg.Tunnel, learner: cfg.Learner != nil}
}

// bfs queues every link on the one queue, in document order.
type bfs struct{}

func (bfs) scoresLinks() bool { return false }

func (bfs) push(dst []Entry, p *Page, u urlnorm.URL, depth int, _ []float64) []Entry {
	return append(dst, Entry{Topic: "", URL: u, Depth: depth, Parent: p.FinalURL})
}

// arrange turns the entries around: on a FIFO queue the first link must
// be queued first.
func (bfs) arrange(push []Entry) []Entry {
	for i, j := 0, len(push)-1; i < j; i, j = i+1, j-1 {
		push[i], push[j] = push[j], push[i]
	}
	return push
}

// page pushes every link of a page on the stack of each topic the page
// is relevant to, with the page's score (the classic focused crawler).
type page struct{ topics []string }

func (page) scoresLinks() bool { return false }

func (s page) push(dst []Entry, p *Page, u urlnorm.URL, depth int, _ []float64) []Entry {
	for _, t := range s.topics {
		if p.Relevant[t] {
			dst = append(dst, Entry{Topic: t, URL: u, Depth: depth, Score: p.Scores[t], Parent: p.FinalURL})
		}
	}
	return dst
}

func (page) arrange(push []Entry) []Entry { return push }

// link pushes a link on the stack of each topic its context score
// reaches the threshold of (the paper), and on the topic's reserve
// otherwise when tunnelling; with a learner, on every topic's stack with
// its learnt value.
type link struct {
	topics          []string
	scorer          Scorer
	tunnel, learner bool
}

func (link) scoresLinks() bool { return true }

func (s link) push(dst []Entry, p *Page, u urlnorm.URL, depth int, vals []float64) []Entry {
	for i, v := range vals {
		e := Entry{Topic: s.topics[i], URL: u, Depth: depth, Score: v, Parent: p.FinalURL}
		switch {
		case s.learner || v >= s.scorer.Threshold(i):
		case s.tunnel:
			e.Topic = Stack{Topic: s.topics[i], Kind: Reserve}.Name()
		default:
			continue
		}
		dst = append(dst, e)
	}
	return dst
}

func (link) arrange(push []Entry) []Entry { return push }

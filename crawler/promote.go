package crawler

import (
	"container/list"

	"github.com/scent-crawler/scent/urlnorm"
)

// Limits of Config.Promote's memory: the pages whose reserve links are
// remembered, the links remembered per page and in all. A remembered link
// takes about 280 bytes (its URL as a child, its reserve entry and its
// place in childOf: BenchmarkPromoter_linkMemory), so the whole is some
// 18 MB at most; by pages and per page alone it could reach 2 million
// links.
const (
	promoteSources = 4096
	promoteLinks   = 500
	promoteTotal   = 1 << 16
	// A page's reserve links move to the stack once this many pages
	// fetched through its links are known, at least half of them
	// on-topic.
	promoteAfter = 3
)

// promoter moves a page's off-topic links for a topic from the topic's
// reserve to its stack once the pages fetched through the page's links
// prove mostly on-topic: a listing whose first entries were relevant is
// followed to its end even where the classifier doubted the rest. It
// remembers the most recent pages only, so its memory is bounded.
type promoter struct {
	topics  []string
	lru     *list.List // of *promoteSource, most recent first
	by      map[urlnorm.URL]*list.Element
	childOf map[urlnorm.URL]*list.Element // a link target → the latest remembered page linking to it
	links   int                           // children of the remembered pages, in all
}

type promoteSource struct {
	url      urlnorm.URL
	children []urlnorm.URL
	reserve  []Entry // its reserve links, in push order
	fetched  []int   // per topic: pages fetched through its links
	relevant []int   // of those, on-topic for the topic
	promoted []bool
}

func newPromoter(topics []string) *promoter {
	return &promoter{topics: topics, lru: list.New(), by: make(map[urlnorm.URL]*list.Element), childOf: make(map[urlnorm.URL]*list.Element)}
}

// remember keeps the pushes of the page at u when some of them went to a
// reserve.
func (pr *promoter) remember(u urlnorm.URL, push []Entry) {
	if _, ok := pr.by[u]; ok || len(push) == 0 {
		return
	}
	s := &promoteSource{url: u}
	for _, e := range push {
		i := pr.topicOf(e.Topic)
		if i < 0 || len(s.children) == promoteLinks {
			continue
		}
		s.children = append(s.children, e.URL)
		if e.Topic != pr.topics[i] {
			s.reserve = append(s.reserve, e)
		}
	}
	if len(s.reserve) == 0 {
		return
	}
	n := len(pr.topics)
	s.fetched, s.relevant, s.promoted = make([]int, n), make([]int, n), make([]bool, n)
	el := pr.lru.PushFront(s)
	pr.by[u] = el
	for _, c := range s.children {
		pr.childOf[c] = el
	}
	pr.links += len(s.children)
	for pr.lru.Len() > promoteSources || pr.links > promoteTotal && pr.lru.Len() > 1 {
		old := pr.lru.Back()
		pr.lru.Remove(old)
		gone := old.Value.(*promoteSource)
		delete(pr.by, gone.url)
		pr.links -= len(gone.children)
		for _, c := range gone.children {
			if pr.childOf[c] == old {
				delete(pr.childOf, c)
			}
		}
	}
}

// observe counts page p, fetched through entry e, for the latest
// remembered page linking to it, and returns that page's reserve links to
// push on the stack of the topic whose evidence just became sufficient.
func (pr *promoter) observe(e Entry, p *Page) []Entry {
	el, ok := pr.childOf[e.URL]
	i := pr.topicOf(e.Topic)
	if !ok || i < 0 || p.Failure != "" || p.Relevant == nil {
		return nil
	}
	s := el.Value.(*promoteSource)
	s.fetched[i]++
	if p.Relevant[pr.topics[i]] {
		s.relevant[i]++
	}
	if s.promoted[i] || s.fetched[i] < promoteAfter || 2*s.relevant[i] < s.fetched[i] {
		return nil
	}
	s.promoted[i] = true
	var out []Entry
	for _, r := range s.reserve {
		if r.Topic == (Stack{Topic: pr.topics[i], Kind: Reserve}).Name() {
			r.Topic = pr.topics[i]
			out = append(out, r)
		}
	}
	return out
}

// topicOf returns the index of the topic whose stack or reserve is named
// stack, or -1.
func (pr *promoter) topicOf(stack string) int {
	for i, t := range pr.topics {
		if stack == t || stack == (Stack{Topic: t, Kind: Reserve}).Name() {
			return i
		}
	}
	return -1
}

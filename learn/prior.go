package learn

import (
	"context"
	"fmt"
	"sync"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// DefaultPrior is the weight of each link of the training pages in the
// evidence a crawl's learner starts from (Prime).
const DefaultPrior = 1.0

// MaxPriorWeight bounds Options.PriorWeight: a training link a million
// times a crawl's own already drowns it, and weights of the order of
// the largest float overflow the counts.
const MaxPriorWeight = 1e6

// PriorLink is a link of the training pages, known before the crawl,
// with where it leads for each topic.
type PriorLink struct {
	Source, Target urlnorm.URL
	Tokens, Anchor []string  // its context segment and anchor
	Base           []float64 // the base model's score per topic
	Page           []float64 // its page's score per topic
	// Class per topic: PriorLeads (its target is an example of the
	// topic), PriorNext (its target links to one) or PriorNot (neither).
	Class []int8
}

// The classes of a PriorLink.
const (
	PriorLeads int8 = classLeads
	PriorNext  int8 = classNext
	PriorNot   int8 = classNot
)

// TrainingLinks fetches the training pages (pages: the topics'
// examples and the negatives) with f and returns their links between
// training pages as evidence of where links lead: the layers of a
// context graph around the examples (Diligenti et al. 2000). For topic
// t (sc's order) a link to one of examples[t] leads to the topic, a
// link to a training page that links to one of them leads on, and a
// link to another training page leads nowhere; a link to a page outside
// the training set says nothing and is left out. Each link is scored by
// sc (its segment, and its page) as the crawl scores links. It returns
// the links and how many pages it read; a page listed twice, or reached
// again through a redirect, is read once, and a page that fails to fetch
// or parse is left out. It fetches up to parallel pages at once (0:
// DefaultPriorFetchers); the fetcher's per-host politeness still holds.
func TrainingLinks(ctx context.Context, f crawler.Fetcher, sc crawler.Scorer, seg segment.Options, pages []urlnorm.URL, examples [][]urlnorm.URL, parallel int) ([]PriorLink, int) {
	if parallel <= 0 {
		parallel = DefaultPriorFetchers
	}
	type page struct {
		url    urlnorm.URL // final
		segs   []segment.Segment
		scores []float64
	}
	pages = uniqueURLs(pages)
	read := make([]*page, len(pages))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res, err := f.Fetch(ctx, pages[i], nil)
				if err != nil || res.Status != 200 {
					continue
				}
				pg, err := segment.Split(res.Body, res.ContentType, res.FinalURL, seg)
				if err != nil {
					continue
				}
				read[i] = &page{url: res.FinalURL, segs: pg.Segments, scores: sc.ScorePage(pg.Tokens, nil)}
			}
		}()
	}
	for i := range pages {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()

	n := 0
	known := make(map[urlnorm.URL]bool) // training pages read, by requested and final URL
	for i, p := range read {
		switch {
		case p == nil:
		case known[p.url]: // the final URL of a page read already
			read[i] = nil
		default:
			known[pages[i]], known[p.url] = true, true
			n++
		}
	}
	topics := sc.Topics()
	leads := make([]map[urlnorm.URL]bool, len(topics))   // examples, by requested and final URL
	linkers := make([]map[urlnorm.URL]bool, len(topics)) // pages linking to an example
	for t := range topics {
		leads[t], linkers[t] = make(map[urlnorm.URL]bool), make(map[urlnorm.URL]bool)
		if t < len(examples) {
			for _, u := range examples[t] {
				leads[t][u] = true
			}
		}
		for i, p := range read {
			if p != nil && leads[t][pages[i]] {
				leads[t][p.url] = true
			}
		}
		for i, p := range read {
			if p == nil {
				continue
			}
			for _, s := range p.segs {
				if leads[t][s.URL] && s.URL != p.url {
					linkers[t][pages[i]], linkers[t][p.url] = true, true
					break
				}
			}
		}
	}
	var out []PriorLink
	var tokens []string
	for _, p := range read {
		if p == nil {
			continue
		}
		for _, s := range p.segs {
			if !known[s.URL] || s.URL == p.url {
				continue
			}
			tokens = s.Tokens(tokens[:0])
			pl := PriorLink{Source: p.url, Target: s.URL, Tokens: append([]string(nil), tokens...), Anchor: s.Anchor,
				Base: sc.Score(tokens, nil), Page: p.scores, Class: make([]int8, len(topics))}
			for t := range topics {
				switch {
				case leads[t][s.URL]:
					pl.Class[t] = PriorLeads
				case linkers[t][s.URL]:
					pl.Class[t] = PriorNext
				default:
					pl.Class[t] = PriorNot
				}
			}
			out = append(out, pl)
		}
	}
	return out, n
}

// DefaultPriorFetchers is how many training pages TrainingLinks fetches
// at once when not told.
const DefaultPriorFetchers = 8

// uniqueURLs returns us without repeats, in first order.
func uniqueURLs(us []urlnorm.URL) []urlnorm.URL {
	seen := make(map[urlnorm.URL]bool, len(us))
	out := make([]urlnorm.URL, 0, len(us))
	for _, u := range us {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// Prime counts links of the training pages (TrainingLinks) as evidence
// of where links lead, each with weight w, and builds the link models
// from the evidence so far, so that the crawl's first links are valued
// by what the training pages' links teach. It is called before the crawl
// (a resumed crawl restores its saved evidence, which holds the prior).
func (l *Learner) Prime(links []PriorLink, w float64) {
	var f []string
	for i := range links {
		pl := &links[i]
		for t := range l.topics {
			if t >= len(pl.Class) {
				continue
			}
			var base float64
			if t < len(pl.Base) {
				base = pl.Base[t]
			}
			f = sharedFeatures(f[:0], pl.Source, pl.Target, pl.Tokens, pl.Anchor, -1)
			f = topicFeatures(f, base, t < len(pl.Page) && pl.Page[t] >= l.rewardAt(t), siblingsUnknown)
			l.counts[t].Add(int(pl.Class[t]), f, w)
		}
	}
	l.build()
}

var _ crawler.Primer = (*Learner)(nil)

// PrimeCrawl implements crawler.Primer: it counts the links of
// Options.Prior, if set, each with weight Options.PriorWeight.
func (l *Learner) PrimeCrawl(ctx context.Context) error {
	if l.opts.Prior == nil {
		return nil
	}
	links, err := l.opts.Prior(ctx)
	if err != nil {
		return fmt.Errorf("learner prior: %w", err)
	}
	l.Prime(links, l.opts.PriorWeight)
	return nil
}

package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// splitList splits comma-separated values, trimming spaces and dropping
// empty items and repeats (the first is kept).
func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item != "" && !slices.Contains(out, item) {
				out = append(out, item)
			}
		}
	}
	return out
}

// parseInts reads a list flag of positive integers.
func parseInts(flag string, values []string) ([]int, error) {
	var out []int
	for _, s := range splitList(values) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--%s %q: want positive integers separated by commas", flag, s)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s: no value", flag)
	}
	return out, nil
}

// parseThresholdList reads --threshold: numbers in (0, 1].
func parseThresholdList(values []string) ([]float64, error) {
	var out []float64
	for _, s := range splitList(values) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("--threshold %q: want numbers in (0, 1] separated by commas", s)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--threshold: no value")
	}
	return out, nil
}

// nearest returns the value of vs nearest want (the first on a tie).
func nearest[T int | float64](vs []T, want T) T {
	best := vs[0]
	for _, v := range vs[1:] {
		if math.Abs(float64(v-want)) < math.Abs(float64(best-want))-1e-9 {
			best = v
		}
	}
	return best
}

// Grid is a set of experiments: one for every combination of its lists,
// each with the settings of Spec (whose Topics, Strategy, Frontier and the
// model's K, Window and Threshold the lists replace). Every list value may
// hold several items separated by commas, except TopicSets, where a value
// with commas is one crawl of several topics.
type Grid struct {
	Spec
	TopicSets  []string
	Strategies []string
	Frontiers  []string
	Ks         []string
	Windows    []string
	Thresholds []string
	// Keep keeps the crawls' databases, exports and models (their folder
	// is printed); else they are removed at the end.
	Keep bool
}

// Validate checks the grid's lists and then its Spec.
func (o Grid) Validate() error {
	if _, err := o.cells(); err != nil {
		return err
	}
	return o.Spec.Validate()
}

// Specs expands the grid into its experiments, in the order they run
// (breadth-first once per topic set: it has no classifier).
func (o Grid) Specs() ([]Spec, error) {
	cells, err := o.cells()
	if err != nil {
		return nil, err
	}
	out := make([]Spec, len(cells))
	for i, c := range cells {
		out[i] = o.single(c)
	}
	return out, nil
}

// single returns the experiment of cell c.
func (o Grid) single(c gridCell) Spec {
	s := o.Spec
	s.Topics, s.Strategy, s.Frontier = c.topics, c.strategy, c.frontier
	if s.Frontier == "" {
		s.Frontier = crawler.FrontierStack
	}
	s.Model.K, s.Model.Window, s.Model.Threshold = c.k, c.window, c.threshold
	return s
}

// cells expands the flags into the grid's cells: for every topic set, bfs
// once (when listed) and every combination of the other strategies with
// the frontiers, K, windows and thresholds.
func (o Grid) cells() ([]gridCell, error) {
	if o.Out == "" || len(o.TopicSets) == 0 {
		return nil, errors.New("--out and --topic are required")
	}
	var sets [][]string
	seen := make(map[string]bool)
	for _, v := range o.TopicSets {
		set := splitList([]string{v})
		if len(set) == 0 {
			return nil, fmt.Errorf("--topic %q: no topic", v)
		}
		if key := report.TopicSet(set); !seen[key] {
			seen[key] = true
			sets = append(sets, set)
		}
	}
	var strategies []crawler.Strategy
	for _, s := range splitList(o.Strategies) {
		st, err := crawler.ParseStrategy(s)
		if err != nil {
			return nil, err
		}
		strategies = append(strategies, st)
	}
	var frontiers []crawler.Frontier
	for _, s := range splitList(o.Frontiers) {
		fr := crawler.Frontier(s)
		if err := (crawler.Config{Frontier: fr}).Validate(); err != nil {
			return nil, err
		}
		frontiers = append(frontiers, fr)
	}
	if len(strategies) == 0 || len(frontiers) == 0 {
		return nil, errors.New("--strategy and --frontier need at least one value")
	}
	ks, err := parseInts("k", o.Ks)
	if err != nil {
		return nil, err
	}
	windows, err := parseInts("window", o.Windows)
	if err != nil {
		return nil, err
	}
	for _, n := range windows {
		if n > training.MaxWindow {
			return nil, fmt.Errorf("--window %d: want at most %d", n, training.MaxWindow)
		}
	}
	ths, err := parseThresholdList(o.Thresholds)
	if err != nil {
		return nil, err
	}
	defK, defN, defT := nearest(ks, report.GridDefaultK), nearest(windows, report.GridDefaultWindow), nearest(ths, report.GridDefaultThreshold)
	var cells []gridCell
	for _, set := range sets {
		for _, st := range strategies {
			if st == crawler.StrategyBFS {
				cells = append(cells, gridCell{topics: set, strategy: st, k: defK, window: defN, threshold: defT})
				continue
			}
			for _, fr := range frontiers {
				for _, k := range ks {
					for _, n := range windows {
						for _, th := range ths {
							cells = append(cells, gridCell{topics: set, strategy: st, frontier: fr, k: k, window: n, threshold: th})
						}
					}
				}
			}
		}
	}
	if len(cells) == 1 && len(frontiers) == 1 {
		cells[0].frontier = frontiers[0]
	}
	return cells, nil
}

// thresholdScorer is a scorer whose every topic's threshold is th, so
// that one trained model serves the cells of several thresholds.
type thresholdScorer struct {
	*training.Scorer
	th float64
}

// Threshold implements crawler.Scorer.
func (s thresholdScorer) Threshold(int) float64 { return s.th }

// FetchCache keeps the results of the fetches of training examples (and
// their backlink parents) in memory, so that the models of a grid, or a
// crawl's model and its learner's prior, fetch each page once.
type FetchCache struct {
	f  training.Fetcher
	mu sync.Mutex
	m  map[urlnorm.URL]cachedFetch
}

type cachedFetch struct {
	res *fetch.Result
	err error
}

// NewFetchCache returns a FetchCache of f's fetches.
func NewFetchCache(f training.Fetcher) *FetchCache {
	return &FetchCache{f: f, m: make(map[urlnorm.URL]cachedFetch)}
}

// Fetch implements training.Fetcher. Results are shared: callers must not
// change them. Cancelled fetches are not kept.
func (c *FetchCache) Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*fetch.Result, error) {
	c.mu.Lock()
	r, ok := c.m[u]
	c.mu.Unlock()
	if ok {
		return r.res, r.err
	}
	res, err := c.f.Fetch(ctx, u, hdr)
	if ctx.Err() != nil {
		return res, err
	}
	c.mu.Lock()
	if c.m != nil {
		c.m[u] = cachedFetch{res, err}
	}
	c.mu.Unlock()
	return res, err
}

// Release forgets the results kept; later fetches are not kept.
func (c *FetchCache) Release() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

package training

import (
	"context"
	"slices"
	"sync"

	"github.com/scent-crawler/scent/urlnorm"
)

// BacklinkRecorder is a BacklinkSource that passes on what another source
// finds and keeps it, so that the pages whose links a model learnt from
// can be named after Build (see LearntFrom).
type BacklinkRecorder struct {
	src   BacklinkSource
	mu    sync.Mutex
	links []Backlink
}

// NewBacklinkRecorder records the backlinks src returns.
func NewBacklinkRecorder(src BacklinkSource) *BacklinkRecorder {
	return &BacklinkRecorder{src: src}
}

// Backlinks implements BacklinkSource.
func (r *BacklinkRecorder) Backlinks(ctx context.Context, targets []urlnorm.URL, limit int) ([]Backlink, error) {
	found, err := r.src.Backlinks(ctx, targets, limit)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.links = append(r.links, found...)
	r.mu.Unlock()
	return found, nil
}

// Links returns the backlinks recorded so far.
func (r *BacklinkRecorder) Links() []Backlink {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.links)
}

// LearntFrom returns the pages a model built from seeds and backlinks
// learnt from, sorted and each once: every example given by URL (the
// topic, "other" and "other:KIND" lines of the seed file) and the parent of every
// backlink that is not a link of a page to itself (the segments of its
// links were training documents). Pass the backlinks Build was given or
// found (Options.Backlinks, a BacklinkRecorder's Links). A crawl that
// fetches one of these pages has not found anything new: an honest
// report leaves them out of the targets.
func LearntFrom(seeds *Seeds, backlinks []Backlink) []urlnorm.URL {
	seen := make(map[urlnorm.URL]bool)
	out := []urlnorm.URL{} // not nil: an empty list is known to be empty
	add := func(u urlnorm.URL) {
		if !u.IsZero() && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, t := range seeds.Topics {
		for _, s := range seeds.Train[t] {
			add(s.URL)
		}
	}
	for _, s := range seeds.Other {
		add(s.URL)
	}
	for _, s := range seeds.Kinded {
		add(s.URL)
	}
	for _, b := range backlinks {
		if b.Parent != b.Target {
			add(b.Parent)
		}
	}
	slices.SortFunc(out, func(x, y urlnorm.URL) int {
		switch xs, ys := x.String(), y.String(); {
		case xs < ys:
			return -1
		case xs > ys:
			return 1
		}
		return 0
	})
	return out
}

package revisittest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/revisit"
)

// MemStore is the in-memory reference store of revisits: a
// crawlertest.MemStore for crawling, which it embeds, that also keeps
// every successful page committed, numbered from 1 in commit order across
// its crawls, with their versions and change log. It suits tests; the
// zero value is not usable; call NewMemStore.
type MemStore struct {
	*crawlertest.MemStore
	mu       sync.Mutex
	pages    []*memPage // by ID - 1
	checks   []revisit.Check
	schedule map[int64]revisit.Due // by page ID
}

// memPage is a page with its crawl and versions (versions[0] is the page
// as crawled).
type memPage struct {
	crawl    int64
	page     revisit.Page
	versions []revisit.Version
	checked  bool // a check was recorded
}

var (
	_ Store      = (*MemStore)(nil)
	_ WatchStore = (*MemStore)(nil)
)

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{MemStore: crawlertest.NewMemStore(), schedule: make(map[int64]revisit.Due)}
}

// Commit implements crawler.Store: it commits to the embedded store and
// keeps the pages that it stored without failure.
func (s *MemStore) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	if err := s.MemStore.Commit(ctx, crawl, pages, push); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pages {
		if p.Failure != "" {
			continue
		}
		mp := &memPage{crawl: crawl,
			page: revisit.Page{ID: int64(len(s.pages) + 1), URL: p.URL, Version: 1, ETag: p.ETag, Modified: p.Modified,
				ContentHash: p.ContentHash, CheckedAt: p.FetchedAt, FetchedAt: p.FetchedAt, FinalURL: p.FinalURL},
			versions: []revisit.Version{{Number: 1, FetchedAt: p.FetchedAt, Status: p.Status, Size: p.Size,
				ContentType: p.ContentType, ETag: p.ETag, Modified: p.Modified, ContentHash: p.ContentHash,
				Title: p.Title, Text: p.Text}},
		}
		s.pages = append(s.pages, mp)
	}
	return nil
}

// RevisitPages implements revisit.Store.
func (s *MemStore) RevisitPages(_ context.Context, crawl, after int64, limit int) ([]revisit.Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []revisit.Page
	for _, mp := range s.pages {
		if len(out) == limit {
			break
		}
		if mp.crawl == crawl && mp.page.ID > after {
			out = append(out, mp.page)
		}
	}
	return out, nil
}

// page returns the page of ID id, or nil.
func (s *MemStore) page(id int64) *memPage {
	if id < 1 || id > int64(len(s.pages)) {
		return nil
	}
	return s.pages[id-1]
}

// VersionText implements revisit.Store.
func (s *MemStore) VersionText(_ context.Context, page int64, version int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mp := s.page(page)
	if mp == nil || version < 1 || version > len(mp.versions) {
		return "", fmt.Errorf("page %d version %d: %w", page, version, revisit.ErrNoVersion)
	}
	return mp.versions[version-1].Text, nil
}

// RecordCheck implements revisit.Store: a new version must follow the
// page's latest.
func (s *MemStore) RecordCheck(_ context.Context, c *revisit.Check) error {
	if c == nil {
		return errors.New("record check: nil check")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.record(c)
}

// record is RecordCheck with s.mu held.
func (s *MemStore) record(c *revisit.Check) error {
	mp := s.page(c.PageID)
	if mp == nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, revisit.ErrNoVersion)
	}
	if c.New != nil {
		if c.New.Number != len(mp.versions)+1 {
			return fmt.Errorf("record check of page %d: new version %d does not follow the latest, %d", c.PageID, c.New.Number, len(mp.versions))
		}
		v := *c.New
		mp.versions = append(mp.versions, v)
		mp.page.Version, mp.page.ETag, mp.page.Modified, mp.page.ContentHash = v.Number, v.ETag, v.Modified, v.ContentHash
	} else if v := c.Validators; v != nil {
		last := &mp.versions[len(mp.versions)-1]
		last.ETag, last.Modified = v.ETag, v.Modified
		mp.page.ETag, mp.page.Modified = v.ETag, v.Modified
	}
	// CheckedAt is the latest check's time, or the fetch's before any.
	if !mp.checked || c.CheckedAt.After(mp.page.CheckedAt) {
		mp.page.CheckedAt, mp.checked = c.CheckedAt, true
	}
	logged := *c
	logged.New = nil
	logged.Validators = nil
	s.checks = append(s.checks, logged)
	return nil
}

// PageVersions returns every version of a page, oldest first; a page
// that never changed has one, the crawled page.
func (s *MemStore) PageVersions(_ context.Context, page int64) ([]revisit.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mp := s.page(page)
	if mp == nil {
		return nil, fmt.Errorf("page %d: %w", page, revisit.ErrNoVersion)
	}
	return slices.Clone(mp.versions), nil
}

// EachCheck calls fn for every check recorded of the crawl's pages, in
// the order they were recorded, without their New version.
func (s *MemStore) EachCheck(_ context.Context, crawl int64, fn func(*revisit.Check) error) error {
	s.mu.Lock()
	var cs []revisit.Check
	for _, c := range s.checks {
		if mp := s.page(c.PageID); mp != nil && mp.crawl == crawl {
			cs = append(cs, c)
		}
	}
	s.mu.Unlock()
	for i := range cs {
		if err := fn(&cs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Schedule implements revisit.WatchStore.
func (s *MemStore) Schedule(_ context.Context, crawl int64) (map[int64]revisit.Due, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[int64]revisit.Due)
	for id, d := range s.schedule {
		if s.page(id).crawl == crawl {
			out[id] = d
		}
	}
	return out, nil
}

// RecordScheduledCheck implements revisit.WatchStore: RecordCheck that
// also keeps the page's next due time, both or neither.
func (s *MemStore) RecordScheduledCheck(_ context.Context, c *revisit.Check, d revisit.Due) error {
	if c == nil {
		return errors.New("record check: nil check")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record(c); err != nil {
		return err
	}
	s.schedule[c.PageID] = d
	return nil
}

// ChecksSince implements revisit.WatchStore.
func (s *MemStore) ChecksSince(_ context.Context, crawl int64, t time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.checks {
		if s.page(c.PageID).crawl == crawl && !c.CheckedAt.Before(t) {
			n++
		}
	}
	return n, nil
}

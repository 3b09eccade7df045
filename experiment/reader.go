package experiment

import (
	"context"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/sqlite"
)

// Reader is what report, export and search read from a database of
// crawls: a SQLite file or a PostgreSQL database (postgres://…), opened
// by OpenReader. Both stores read pages and links back the same way
// (EachPage, EachLink); Crawl and Search give each store's answer in the
// types below.
type Reader interface {
	// Crawl returns the crawl named name, or the latest one when name is
	// empty.
	Crawl(ctx context.Context, name string) (CrawlInfo, error)
	// EachPage calls fn for every fetch of the crawl in fetch order,
	// failed ones included.
	EachPage(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error
	// EachLink calls fn for every stored link of the crawl, in the fetch
	// order of the pages they were found on.
	EachLink(ctx context.Context, crawl int64, fn func(*crawler.PageLink) error) error
	// Elapsed returns the time between the first and the last fetch of
	// the crawl, and its number of fetches.
	Elapsed(ctx context.Context, crawl int64) (time.Duration, int, error)
	// Search finds the stored pages of every crawl of the database that
	// match query (in the store's query syntax), best first, at most
	// limit.
	Search(ctx context.Context, query string, limit int) ([]SearchHit, error)
	// Close closes the database.
	Close() error
}

// CrawlInfo is what a Reader tells of a stored crawl.
type CrawlInfo struct {
	ID       int64
	Name     string
	Strategy string
	// Topics are the topics of the crawl's model, in the order of its
	// stored scores (none for a crawl without model).
	Topics []string
}

// SearchHit is one page found by Reader.Search. Both stores fill the same
// fields; only the Score differs in kind: BM25 in SQLite, PostgreSQL's
// ts_rank_cd in PostgreSQL (higher is better in both).
type SearchHit struct {
	Crawl string // the name of the crawl that stored the page
	URL   string
	Title string
	// Snippet is a short extract of the text around the matching words,
	// which are wrapped in [ and ].
	Snippet string
	Score   float64
}

// OpenReader opens an existing database for reading: a postgres:// or
// postgresql:// URL opens the PostgreSQL store (which creates the scent
// schema if the database has none yet), anything else an existing SQLite
// file, read-only.
func OpenReader(ctx context.Context, db string) (Reader, error) {
	if postgres.IsURL(db) {
		s, err := postgres.Open(ctx, db, postgres.Options{})
		if err != nil {
			return nil, err
		}
		return pgReader{s}, nil
	}
	s, err := OpenExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	return sqliteReader{s}, nil
}

// OpenCrawlReader opens db with OpenReader and finds the crawl named name
// in it (the latest when name is empty). The caller closes the Reader.
func OpenCrawlReader(ctx context.Context, db, name string) (Reader, CrawlInfo, error) {
	r, err := OpenReader(ctx, db)
	if err != nil {
		return nil, CrawlInfo{}, err
	}
	c, err := r.Crawl(ctx, name)
	if err != nil {
		r.Close()
		return nil, c, err
	}
	return r, c, nil
}

// sqliteReader is the Reader of a SQLite store.
type sqliteReader struct{ *sqlite.Store }

// Crawl returns the crawl named name of the SQLite store.
func (r sqliteReader) Crawl(ctx context.Context, name string) (CrawlInfo, error) {
	c, err := r.Store.Crawl(ctx, name)
	return CrawlInfo{ID: c.ID, Name: c.Name, Strategy: c.Strategy, Topics: c.Topics}, err
}

// Search searches the SQLite store's full-text index (FTS4 syntax).
func (r sqliteReader) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	res, err := r.Store.Search(ctx, query, limit)
	hits := make([]SearchHit, len(res))
	for i, h := range res {
		hits[i] = SearchHit{Crawl: h.Crawl, URL: h.URL, Title: h.Title, Snippet: h.Snippet, Score: h.Score}
	}
	return hits, err
}

// pgReader is the Reader of a PostgreSQL store.
type pgReader struct{ *postgres.Store }

// Crawl returns the crawl named name of the PostgreSQL store.
func (r pgReader) Crawl(ctx context.Context, name string) (CrawlInfo, error) {
	c, err := r.Store.Crawl(ctx, name)
	return CrawlInfo{ID: c.ID, Name: c.Name, Strategy: c.Strategy, Topics: c.Topics}, err
}

// Search searches the PostgreSQL store's text search (web search syntax).
func (r pgReader) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	res, err := r.Store.Search(ctx, query, limit)
	hits := make([]SearchHit, len(res))
	for i, h := range res {
		hits[i] = SearchHit{Crawl: h.Crawl, URL: h.URL, Title: h.Title, Snippet: h.Snippet, Score: h.Score}
	}
	return hits, err
}

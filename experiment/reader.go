package experiment

import (
	"context"
	"io"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/urlnorm"
)

// Reader is what report, export and search read from a database of
// crawls: a SQLite file or a PostgreSQL database (postgres://…), opened
// by OpenReader. Both stores read pages and links back the same way
// (EachPage, EachLink), and tell of a crawl and of search results in the
// same records (crawler.CrawlInfo, crawler.SearchResult).
type Reader interface {
	// Crawl returns the crawl named name, or the latest one when name is
	// empty.
	Crawl(ctx context.Context, name string) (crawler.CrawlInfo, error)
	// EachPage calls fn for every fetch of the crawl in fetch order,
	// failed ones included.
	EachPage(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error
	// EachPageText is EachPage with each page's extracted text
	// (crawler.Page.Text).
	EachPageText(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error
	// EachLink calls fn for every stored link of the crawl, in the fetch
	// order of the pages they were found on.
	EachLink(ctx context.Context, crawl int64, fn func(*crawler.PageLink) error) error
	// Learnt returns the pages the crawl's model and learner learnt
	// from, as the crawl kept them (crawler.Config.Learnt); none when it
	// kept none.
	Learnt(ctx context.Context, crawl int64) ([]urlnorm.URL, error)
	// LearnerState returns the learner's state the crawl saved last, nil
	// when it saved none.
	LearnerState(ctx context.Context, crawl int64) ([]byte, error)
	// Elapsed returns the time between the first and the last fetch of
	// the crawl, and its number of fetches.
	Elapsed(ctx context.Context, crawl int64) (time.Duration, int, error)
	// Search finds the stored pages of every crawl of the database that
	// match query (in the store's query syntax), best first, at most
	// limit.
	Search(ctx context.Context, query string, limit int) ([]crawler.SearchResult, error)
	// Close closes the database.
	Close() error
}

// ReadOptions are the settings of a Reader of a PostgreSQL database (a
// SQLite file has no server to lose); the zero value is the store's
// defaults.
type ReadOptions struct {
	// MaxOutage is how long a read waits for a database server it lost
	// (restarted, failed over), reconnecting, before it fails with
	// postgres.ErrServerLost (postgres.Options.MaxOutage; default 1
	// minute). A read of a crawl's pages or links cut by the outage goes
	// on after the last one it gave: none is given twice.
	MaxOutage time.Duration
	// Log, when set, is told when the server is lost and found again.
	Log io.Writer
}

// OpenReader opens an existing database for reading: a postgres:// or
// postgresql:// URL opens the PostgreSQL store (which creates the scent
// schema if the database has none yet) with the settings of o, anything
// else an existing SQLite file, read-only.
func OpenReader(ctx context.Context, db string, o ReadOptions) (Reader, error) {
	if postgres.IsURL(db) {
		s, err := postgres.Open(ctx, db, postgres.Options{Existing: true, MaxOutage: o.MaxOutage, Log: o.Log})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := OpenExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenCrawlReader opens db with OpenReader and finds the crawl named name
// in it (the latest when name is empty). The caller closes the Reader.
func OpenCrawlReader(ctx context.Context, db, name string, o ReadOptions) (Reader, crawler.CrawlInfo, error) {
	r, err := OpenReader(ctx, db, o)
	if err != nil {
		return nil, crawler.CrawlInfo{}, err
	}
	c, err := r.Crawl(ctx, name)
	if err != nil {
		r.Close()
		return nil, c, err
	}
	return r, c, nil
}

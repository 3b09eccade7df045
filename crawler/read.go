package crawler

import "time"

// CrawlInfo is what a store tells of a crawl it holds, the same for every
// store.
type CrawlInfo struct {
	ID       int64
	Name     string
	Strategy string
	// Stacks are the crawl's stack names, Topics its model's topics in
	// the order of the stored scores (none for a crawl without model).
	Stacks []string
	Topics []string
	// Config is the crawl's recorded settings (JSON).
	Config     string
	CreatedAt  time.Time
	FinishedAt time.Time // zero while unfinished
	Finish     string    // why the crawl finished; empty while unfinished
}

// SearchResult is one stored page that a store's full-text search found.
// Stores rank by their own measure: BM25 in SQLite, ts_rank_cd in
// PostgreSQL; higher is better in both.
type SearchResult struct {
	PageID int64  // the page's row in the store
	Crawl  string // the name of the crawl that stored the page
	URL    string
	Title  string
	// Snippet is a short extract of the text around the matching words,
	// which are wrapped in [ and ]; "…" may mark cut text.
	Snippet string
	Score   float64
}

// Package sqlite is scent's store: one SQLite database file (WAL mode)
// holding every crawl's frontier, visited set, fetched pages, their page
// scores and their links.
//
// The schema is created and upgraded by migrations embedded in the binary
// (migrations/NNNN_name.sql), applied in order, one transaction each, and
// recorded in PRAGMA user_version. A database written by a newer scent is
// refused with a clear error. The readers (report, export, search) open a
// database read-only; one written by an older scent is upgraded first
// (OpenReading, Upgrade), unless a crawl of it is running.
//
// A page's links are one compressed list in its row (pages.links; see
// pagelinks.go), not a row a link: neighbouring link contexts share most
// of their words. A page's text is stored compressed too (pages.text and
// page_versions.text; see text.go): readers in Go scan it through
// textColumn, SQL reads it through the function scent_text, which every
// connection of a Store registers (driver "sqlite3_scent"). A page's URL
// is kept once, in urls (pages.url_id), and its final URL only when a
// redirect made it another (pages.final_url is empty otherwise). The
// frontier is bounded per host and in all
// (crawler.CrawlSpec.MaxWaitingPerHost, MaxWaiting): hosts.waiting and
// crawls.waiting count the URLs waiting to be fetched, hosts.dropped the
// new URLs not queued because a bound was reached. OpenCrawl keeps the
// pages the crawl's model learnt from (crawler.CrawlSpec.Learnt, table
// learnt), which Learnt gives back to a report. SaveLearner keeps the
// learner's state in rows of at most 64 KiB (learner_parts), so that
// SQLite, which copies what it writes, never allocates a whole memory of
// the learner at once.
//
// Store implements crawler.Store. All writes of one crawl come from its
// scheduler goroutine and are batched into transactions by the crawler;
// readers (export, report) may run at the same time thanks to WAL; they
// read a crawl's pages back as crawler.Page records (EachPage, streamed;
// EachFetch adds links and raw exchanges) and its links as
// crawler.PageLink records (EachLink, streamed). Pop
// only reads: the frontier rows it takes and the URLs it leases are
// written by the crawl's next write transaction (see pops.go), so a
// killed process serves them again on resume, as it does any URL leased
// and not committed. While a crawl runs, GroupCommits keeps the writes of
// all these calls in one transaction committed every so often (group.go):
// a crash loses the last group whole.
//
// Near-duplicates are decided at store time. Commit takes every successful
// page's min-hash signature (made by the crawler or, if missing, here; it
// is not stored, Signature makes it again from the text) and checks pages
// with text against MinhashIndex, the database's index of feature pairs
// (tables dedup_pages and dedup_keys, with the min-hash parameters in
// dedup_params). The index is per database: a later crawl on the same file
// is checked against the pages of every earlier crawl. The earliest stored page of a group is the
// original; a later one keeps its row with pages.duplicate_of pointing at
// the original. Only originals enter the FTS4 table search (title and
// text, read from pages through the view page_texts: the index keeps no
// copy), which Search ranks with BM25:
//
//	Commit ─► pages row ─► MinhashIndex check-and-insert ─┬─ original ─► search (FTS4)
//	                                                      └─ duplicate ─► pages.duplicate_of
//
// Commit also keeps what a page record carries besides its text: its raw
// HTTP exchanges, each request and response compressed with DEFLATE
// (table raw_exchanges; EachFetch gives them back for a WARC export), and
// the sitemaps read at its fetch with their URLs and lastmod (tables
// sitemaps and sitemap_urls; RevisitPages passes the lastmod on), its
// redirect hops (table aliases), and the site-based normalization pairs
// measured with it and the per-host rules they changed (norm_pairs,
// norm_rules; NormRules reads them back). A successful page whose final
// URL the crawl already stored becomes an alias, and a page without a
// word to sign is a duplicate of the earliest page with the same bytes.
// KnownURL (crawler.URLLookup) answers from any goroutine.
package sqlite

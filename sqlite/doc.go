// Package sqlite is scent's store: one SQLite database file (WAL mode)
// holding every crawl's frontier, visited set, fetched pages, their page
// scores and their links.
//
// The schema is created and upgraded by migrations embedded in the binary
// (migrations/NNNN_name.sql), applied in order, one transaction each, and
// recorded in PRAGMA user_version. A database written by a newer scent is
// refused with a clear error.
//
// Store implements crawler.Store. All writes of one crawl come from its
// scheduler goroutine and are batched into transactions by the crawler;
// readers (export, report) may run at the same time thanks to WAL.
package sqlite

// Package revisittest holds the behaviour suite of revisits, which every
// store of page versions and change logs must pass (revisit.Store with a
// crawl's pages in it), and MemStore, the in-memory reference store.
//
// A store's tests call Run with a constructor of empty stores. Every
// subtest serves a small web site (Site) whose pages it changes between
// visits, crawls it into a fresh store with the crawler, breadth-first,
// and then revisits it with revisit.Run and a real fetcher: conditional
// requests and 304 answers, new versions with their IED change from the
// previous one, failures, the change log, the selection of pages by the
// age of their latest check, a canceled run, and the store's own rules
// (RevisitPages in pages of any size, versions that must follow the
// latest, the change log read back in order).
//
// RunWatch is the suite of the scheduler (revisit.Watch) on a
// revisit.WatchStore: simulated weeks against a site whose pages change
// with the simulated clock, the daily capacity, 410s left, timeouts
// recorded, pages moving between revisit groups, a resume that checks no
// page before its stored due time, and the capacity shared by rates.
//
// Sitemaps' lastmod is left to the stores that keep sitemaps.
package revisittest

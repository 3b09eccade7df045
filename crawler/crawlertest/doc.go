// Package crawlertest holds the behaviour suite of the crawler, which
// every crawler.Store must pass, whether it keeps the frontier in memory
// or in a database, and MemStore, the in-memory reference store that
// runs the crawler without a database (and without cgo).
//
// A store's tests call Run with a constructor of empty stores; Run starts
// one subtest per behaviour and crawls real httptest sites (Site) with a
// small real scorer (KeywordScorer).
//
// The tests of the stores and of the command crawl ChainSite too: a site
// of numbered pages linked in a pattern a Chain gives, that counts the
// requests of each User-Agent and can hold pages back until released.
package crawlertest

// Package storetest holds the behaviour suite of crawler.Store that every
// store passes, the embedded SQLite one and the PostgreSQL one: the orders
// of the stacks, pushes of known URLs, the visited set, leases given back
// when a crawl resumes, the per-host cap, rescoring, a pop that stops at
// a floor (crawler.FloorPopper) and the learner's state.
//
// A store's tests call Run with a function that opens a store on a new,
// empty database and can open that database again (a resumed crawl).
package storetest

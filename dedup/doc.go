// Package dedup groups a sequence of pages into near-duplicate clusters:
// each page joins the earliest page it is a near-duplicate of by min-hash
// (two of six features agree), as the crawler's store decides at store
// time. A Clusterer takes the pages in order (Add) and gives a Report:
// every cluster's original and its copies with their estimated
// resemblance, and which copies have the very same text. Archive and
// ClusterArchive check every file of a replayed collection; "scent dedup"
// rechecks a store with the same Clusterer.
package dedup

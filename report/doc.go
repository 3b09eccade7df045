// Package report measures a crawl: per topic, how many fetched pages are
// relevant (by a labels file, or else by the page classifier, marked as
// estimated), the precision and recall of the collected set, and the
// harvest-rate curve (relevant pages against pages fetched), and how many
// of the pages fetched from each stack are unique or near-duplicates of
// pages stored before them (Page.Duplicate, as decided by the store).
//
// A report is built from a stream of pages in fetch order (Add) and
// written as JSON or Markdown. It keeps counters and curve points only, so
// its memory does not grow with the crawl beyond the labels themselves.
package report

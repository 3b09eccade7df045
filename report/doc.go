// Package report measures a crawl: per topic, how many fetched pages are
// relevant (by a labels file, or else by the page classifier, marked as
// estimated), the precision and recall of the collected set, and the
// harvest-rate curve (relevant pages against pages fetched), and how many
// of the pages fetched from each stack are unique or near-duplicates of
// pages stored before them (Page.Duplicate, as decided by the store).
// With labels it also judges the link classifier on the crawl's labelled
// links (AddLink): a link is relevant when its target is labelled with the
// topic, and predicted relevant when its score reaches the topic's
// threshold.
//
// A report is built from a stream of pages in fetch order (Add), then of
// links (AddLink), and closed by Finish. It keeps counters and curve
// points only, so its memory does not grow with the crawl beyond the
// labels themselves. One report is written as JSON or Markdown; one or
// several, side by side, as a self-contained HTML page with harvest and
// recall-against-budget charts drawn as inline SVG (WriteHTML) or as the
// CSV of their curve points (WriteCSV).
package report

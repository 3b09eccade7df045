// Package report measures a crawl: per topic, how many fetched pages are
// relevant (by a labels file, or else by the page classifier, marked as
// estimated), the precision and recall of the collected set, and the
// harvest-rate curve (relevant pages against pages fetched), and how many
// of the pages fetched from each stack are unique or near-duplicates of
// pages stored before them (crawler.Page.DuplicateOf, as decided by the
// store).
// With labels it also judges the link classifier on the crawl's labelled
// links (AddLink): a link is relevant when its target is labelled with the
// topic, and predicted relevant when its score reaches the topic's
// threshold. A page counts under its own URL, the final URL of its
// redirects, or as the index page of a labelled directory ("/d/" and
// "/d/index.html" or "/d/index.htm", which servers answer with one page),
// and once however many of these it was fetched under.
//
// Recall is over held-out targets: Exclude names the pages the crawl's
// model learnt from (its examples, the parents of its backlink segments),
// which are left out of the targets and never count as found, though
// fetching one costs budget. Per topic a report gives the held-out
// recall at fixed budgets (DefaultBudgets, in pages fetched successfully)
// and the pages and fetches after which the crawl had found 25, 50 and
// 75 % of the targets (Shares); Compare sets a breadth-first crawl's
// figures on the same targets beside them with the speed-up over it, and
// TopicStats.Plan takes the all-knowing plan's. The figures over all
// labels (relevant, precision, harvest rate, recall_all_labels) stay as
// secondary measures.
//
// A report is built from a stream of pages in fetch order (Add), then of
// links as a store reads them back (AddLink, crawler.PageLink), and closed
// by Finish. It keeps counters and curve
// points only, so its memory does not grow with the crawl beyond the
// labels themselves. One report is written as JSON or Markdown; one or
// several, side by side, as a self-contained HTML page with harvest and
// recall-against-budget charts drawn as inline SVG (WriteHTML) or as the
// CSV of their curve points (WriteCSV).
//
// A Grid gathers the reports of many crawls of one collection — topic
// sets × strategies × frontiers × K × window × threshold — with the
// cross-validated quality of each crawl's classifier, and writes them as
// one table (Markdown, CSV, JSON) and one HTML page whose charts hold all
// parameters but one at their defaults: harvest curves per strategy,
// crawl recall and classifier precision/recall against K, and crawl
// recall against the window.
package report

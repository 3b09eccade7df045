// Package training builds a topic model from a seed file.
//
// A seed file (see ParseSeeds) names, per topic, example pages of the
// topic (URLs or local HTML files), negative examples (role "other") and
// the URLs a crawl starts from (role "seed"). Build fetches every example
// through the given Fetcher (the crawl's own, so proxies and robots.txt
// apply), cuts each page into tokens and link-context segments with
// package segment, trains a classify.Model and cross-validates it, and
// returns the model with a Report: documents per topic, the top features
// with their χ², and page- and segment-level precision and recall.
package training

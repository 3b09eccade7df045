// Package metrics exposes a running crawl to Prometheus: what it fetched,
// stored and found, read off the pages as they are committed.
//
// Store wraps a crawler.Store and counts every committed page: fetches by
// status class, failures by reason (robots.txt refusals among them),
// pages stored, body bytes, fetch latency, and per topic the pages taken
// from the topic's stack and those the classifier found on-topic (their
// ratio is the harvest rate). Every few seconds, from the same goroutine
// that commits, it also reads the frontier's size per stack (topics and
// their reserves) and, when the store can say (DuplicateCounter), the
// near-duplicates stored. Handler serves the metrics in the Prometheus
// text format; the command mounts it on --metrics-addr.
//
// All metric names start with scent_.
package metrics

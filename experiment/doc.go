// Package experiment is scent's research harness: it measures crawls on a
// labelled collection replayed on loopback.
//
// A Spec is one experiment: the collection, the topics, the crawl's
// strategy, budget and policies, the model's training settings, the
// oracles and the size of the backlink discovery crawl. Run serves the
// collection, writes a seed file of its examples (webkb.WriteSeeds), trains the
// model through the replay, crawls into a SQLite database in the Spec's
// folder, exports it and measures it on held-out targets: the labelled
// pages reachable from the seeds minus every page the model learnt from
// (trained.txt, and kept with the crawl in its database, where a report
// of it finds them: LearntFor). Beside the crawl it measures breadth-first (one crawl of
// every reachable page, cached per collection) and the all-knowing plan.
//
// A Grid expands into Specs, one per combination of its lists (topic
// sets, strategies, frontiers, K, window, threshold). RunGrid trains one
// model per topic set, K and window, fetching each example once (a
// caching fetcher), runs the cells in order and writes the combined
// report. A finished cell is kept in the grid's folder with the settings
// it ran with (the Spec serialised as JSON, the archive's size and time
// and the scoring, under one key); a rerun with the same key runs only
// the cells still missing.
//
// The package also reads stored crawls for the commands around it:
// Measure (a crawl's report against labels), ExportJSONL and NormEval.
// It opens every database it uses in one place (store.go, reader.go):
// Measure, ExportJSONL and search read through Reader, which a SQLite
// file and a PostgreSQL database both provide (OpenReader); a SQLite file
// of an older scent is upgraded first (sqlite.OpenReading).
//
// Data flows one way: experiment uses crawler, training, replay, report,
// sqlite, postgres and the leaf packages; only cmd/scent imports it.
package experiment

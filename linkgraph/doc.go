// Package linkgraph analyses the link graph of a labelled collection that
// replay serves: which pages a crawl from some seeds can reach, where the
// pages of one topic sit among them, what a crawler that knew every page
// would fetch, and what one crawl missed.
//
// Data flows from a loaded replay.Archive and a list of seed URLs:
//
//	seeds ──BFS / Reachable──► the pages a breadth-first crawl fetches
//	                          through the replay handler (directory
//	                          aliases and redirects as it answers them)
//	seeds, topic ──TopicLayout──► Layout: depth, linking labels, hubs,
//	                          greedy hub cover, greedy fetch plan
//	seeds, targets ──TargetPlan──► the greedy plan for any set of pages
//	seeds, topic, fetched URLs ──MissedBy──► Missed: what one crawl missed
//	                          and which unfetched pages hid it
//
// A page's links are those an HTML parser sees ((*replay.Page).Links)
// unless BFS is given another extractor, such as (*replay.Page).RawLinks.
// The package knows labels and groups only as the collection's strings;
// which labels and seeds a particular collection has is its caller's
// business (see webkb).
package linkgraph

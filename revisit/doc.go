// Package revisit checks the stored pages of a crawl again and records how
// much each one changed.
//
// # Data flow
//
// Run pages through the crawl's successfully fetched pages in ID order,
// a batch at a time (Store.RevisitPages), so that memory does not grow with
// the crawl. A page is due when its latest check (or its first fetch, when
// it was never checked) is at least Config.OlderThan before the start of
// the run; Config.OlderThan = 0 makes every page due.
//
// Workers fetch the due pages with a conditional GET: the ETag of the
// page's latest version goes in If-None-Match and its Last-Modified in
// If-Modified-Since. Then
//
//   - 304 Not Modified, or a body with the latest version's SHA-256, is a
//     check without change;
//   - a different body is a change: its text is extracted with
//     segment.Split as the crawler does, compared word by word
//     (change.Words) with the text of the latest version by the Improved
//     Edit Distance (change.IED), and kept as the next version with the six
//     operation counts, δ_E and D_IED;
//   - a failed fetch (or a body that cannot be read as text) is a check
//     with its failure reason and no change.
//
// Every check, whatever its outcome, is handed to Store.RecordCheck, which
// appends a change-log row (check time, URL, fetched size, update size =
// δ_E, changed flag) and stores the new version in one short transaction.
// A canceled run therefore loses at most the checks in flight, which are
// not recorded; running it again with the same OlderThan resumes where it
// stopped.
//
// Watch keeps doing it: it loads the pages, their change logs and the
// stored schedule, orders the pages by next due time (refresh.Queue) and
// checks them as they fall due, at most WatchConfig.Capacity a day. A
// page's next check follows from its change rate (refresh.Estimator on
// its checks; when the capacity is shared by a policy, the older ones
// count less: refresh.DefaultForget), its
// revisit group (refresh.GroupOf) and the hour of day its
// changes were seen at (refresh.PaperHour); WatchStore.RecordScheduledCheck
// stores it with the check in one transaction, which is what lets a
// killed scheduler resume without losing or repeating a check.
//
// Time comes from Config.Now (and, for Watch, WatchConfig.Sleep), so that
// tests and simulations control the check times and the age filter.
//
// Every Store passes the behaviour suite of package revisit/revisittest,
// and every WatchStore its scheduler suite (the SQLite and PostgreSQL
// stores, and its in-memory MemStore).
package revisit

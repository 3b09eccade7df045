// Package postgres is scent's store on a PostgreSQL server: the same
// crawls, frontier, visited set, pages with their scores and links,
// redirect aliases, near-duplicate index and full-text search as the
// embedded SQLite store, in a database that any number of crawler
// processes, on one machine or many, share.
//
// The schema is created and upgraded by migrations embedded in the binary
// (migrations/NNNN_name.sql), applied in order, one transaction each,
// under an advisory lock so that processes starting at once apply them
// once; the version is kept in scent_schema. A database written by a
// newer scent is refused.
//
// Store implements crawler.Store, crawler.URLLookup,
// crawler.SharedFrontier, crawler.Peeker (a pop also reads the entries
// next on its stack, from which a lockstep crawl guesses its next round),
// crawler.FloorPopper (a learning crawl's pop stops at the floor of the
// moves its learner deferred, which are written only then) and
// revisit.WatchStore; EachPage reads a crawl's
// pages back as crawler.Page records and EachLink their links as
// crawler.PageLink records, as the SQLite store's EachPage and EachLink
// do. Many processes, one crawl:
//
//   - Leases. Every process that opens a crawl is a holder (table
//     holders) and renews its expiry every Options.LeaseExpiry/3. Pop
//     claims the entries of a stack with SELECT … FOR UPDATE SKIP LOCKED,
//     so processes popping at once take different entries without
//     waiting, and marks their URLs leased to the holder (urls.state 1,
//     urls.holder). Unless pages per host are capped, the entries read
//     are taken off the stack and their URLs leased in one round trip for
//     all of them, not two an entry, after one statement that takes the
//     slots of their hosts (Options.HostDelay). A
//     pop's peek (PopPeek) reads the entries after those
//     it took, passing over those another process is taking (SKIP
//     LOCKED), and leaves them neither locked nor leased: any process's
//     pop may take them. A process killed with -9 stops renewing: once
//     its expiry passes, the next Pop of any process puts its leased URLs
//     back on top of their stacks. Close gives a process's leases back at
//     once.
//   - Exactly once. A URL is leased only from state 0 (waiting), and a
//     page is stored once per URL (pages.url_id is unique): a process that
//     outlived its lease and commits late stores nothing twice.
//   - Commits. Commit takes advisory locks on what decides whether a page
//     is new (its final URL, its min-hash keys or its body's hash), in
//     ascending order, before any row: two processes committing the same
//     or near-duplicate pages decide one after the other. Transactions
//     that PostgreSQL aborts for a deadlock are run again.
//   - Server lost. A statement or transaction that fails because the
//     connection was lost (a restart, a failover, sessions ended with
//     57P01, a server starting, 57P03, a connection reset or refused,
//     EOF) is run again through the pool, which opens new connections,
//     after a pause growing from 0.1s to 2s, for up to
//     Options.MaxOutage (default 1 minute); then it fails with
//     ErrServerLost, and a resume finds everything committed before.
//     Reads are run again the same way, a revisit's and a scheduler's
//     too; one that streams a crawl's pages or links (EachPage, EachLink)
//     goes on after the last page it gave, by pages.ord, so its caller
//     gets every page once (stream), and EachCheck after the last check
//     it gave.
//   - Commit outcome. A connection lost during COMMIT leaves unknown
//     whether the transaction committed. Every transaction inserts a
//     token of its own first (tx_tokens), the same in each attempt: the
//     retry of one that committed finds its token and stops there, so no
//     transaction commits twice (inTx). Besides, Commit stores no page
//     whose URL holds one already and counts only the pages it stores,
//     pushes count only URLs new to the crawl, frontier rows are
//     upserts, and lease give-backs move only URLs still leased.
//   - Waiting counts. crawls.waiting and hosts.waiting, kept for the
//     frontier's bounds and the progress, change with every move of a
//     URL into or out of state 0, each read under the URL's row lock
//     (markFetched, Pop, requeue, push); a resume recounts them from the
//     URLs (repairWaiting).
//   - Politeness. With Options.HostDelay, hosts.next_at is the shared next
//     time a host may be leased; an entry of a host not yet due stays on
//     its stack.
//   - Budget. With Options.Budget, a Pop leases no more URLs than the
//     budget minus the crawl's successful pages and its URLs leased, read
//     under the crawl's row lock: the budget holds across processes.
//   - Flushes. The sessions run with synchronous_commit off unless the
//     URL sets it, so that a transaction's row locks are not held through
//     the disk's flush (see Open).
//   - Order. pages.ord is the crawl's commit order across processes,
//     taken from crawls.fetched as a commit ends.
//   - Ending. AwaitWork keeps a process with nothing to pop waiting while
//     others hold leases, so that no process ends a crawl others can
//     still grow, and the last one ends it.
//   - Statistics. Each process has the server ANALYZE urls and frontier
//     whenever the URLs it stored double (keepStatistics): a push's and
//     a rescore's lookups by stack and URL id are planned on them, and
//     planned on a table's statistics from when it was small they read
//     whole stacks.
//   - Model. SaveModel and Model share the model a crawl was trained
//     with: the first process to store one under a name wins, and every
//     process uses that one.
//
// Revisits (revisit.go) keep a page's later versions in page_versions,
// with the crawled page copied there as version 1 before the first, and
// one change_log row per check, each check in one transaction that locks
// the page's row, as the SQLite store does (times to the microsecond),
// recorded once across a lost server as a crawl's commit is (inTx);
// the scheduler's next due time of a page (refresh.go, refresh_schedule)
// is written in the transaction of the check that set it. EachCheck
// reads the change log as of one moment, though change_log.id follows
// the inserts and not the commits: it first waits for the checks in
// flight, under an advisory lock each of them holds shared
// (changeLogLock), and reads no id past the highest one then.
//
// Full-text search indexes the title (weight A) and text of originals in
// pages.search (a tsvector, GIN index); near-duplicates are not indexed.
package postgres

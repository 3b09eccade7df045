// Package crawler runs a focused crawl: it pops URLs from per-topic stacks,
// fetches them, cuts each page into link-context segments, scores every
// segment for every topic and pushes on-topic targets back onto the stacks
// of the topics that want them.
//
// Data flows in one direction through a Crawler:
//
//	Store.Pop ──► workers: Fetcher.Fetch ─► segment.Split ─► Scorer.Score
//	   ▲                                                         │
//	   └────────────── Store.Commit (page, links, pushes) ◄──────┘
//
// One scheduler goroutine hands popped entries to a fixed pool of workers
// and gathers their results; one committer goroutine commits the results
// in batches and then pops the next entries, round-robin over the topics
// (the scheduler uses the store only while the committer is idle). The
// frontier, the visited set and the pages live in the store, so a crawl
// stopped at any moment resumes where it stopped.
//
// The crawler declares the interfaces it needs (Store, Scorer, Fetcher);
// the command wires the implementations.
//
// The code follows that loop: Run (run.go) repeats a turn (hand the
// committer the results and a pop: round in lockstep, feed otherwise),
// dispatch and receive; the frontier (frontier.go) serves the stacks — a
// Stack is a topic and a Kind: its stack, reserve or parts (stack.go) —
// and owns the policies that decide which stack a push lands on
// (sections.go, promote.go); a strategy (strategy.go) decides what a
// fetched page's links push; the budget (budget.go) counts fetches
// against the limits; workers (crawler.go) fetch, cut and score one page
// each. Progress goes to a callback (Config.Progress) that the command
// draws. Package crawlertest holds the behaviour suite every Store must
// pass and an in-memory Store.
//
// Page and Link (store.go) are scent's one record of a fetch and of a
// hyperlink: the crawl commits them, the stores read them back (a page
// as a Page, a link as a PageLink, which adds its page's final URL and
// the crawl's topics, the order of a link's scores), and reports,
// exports and experiments take them as they are.
//
// Each worker also signs the page's extracted text with min-hash
// (minhash.DefaultParams, recorded in CrawlSpec.MinHash) so that the store
// can decide at commit time whether the page is a near-duplicate of a page
// stored before.
//
// Strategies: "link" (the default) scores every link's context and pushes
// targets whose score reaches the topic's threshold; "page" classifies the
// whole page and pushes all of its links when it is on-topic; "bfs" uses
// no classifier and one FIFO queue. A bfs crawl commits its results in the
// order their URLs left the queue, and a URL keeps the place of its first
// discovery, so it fetches the same pages whatever the number of workers.
// The stacks of the focused strategies see pushes in the order fetches
// finish, unless Config.Lockstep makes the crawl go in rounds: up to
// Workers entries popped at once, committed in pop order before the next
// round, so that the crawl repeats exactly. Config.Overlap fetches each
// round while the one before commits (round in run.go): every choice
// is still made at a round's end, from the rounds committed by then.
// Config.Speculate guesses each round in memory and fetches the guess
// while the round before commits and the next is popped; the pop decides
// which fetches are the round's (guess.go), so the crawl is the one
// without it.
//
// A crawl not in lockstep is a pipeline (run.go): the workers fetch the
// entries popped ahead while one committer goroutine stores the results
// received, in batches, and then pops the next entries, when few wait,
// in the same turn; the scheduler hands out entries and gathers results
// meanwhile, so fetchers never wait for a commit. The bfs queue is
// popped up to 16 × Workers entries ahead (its order does not change
// with commits); per-topic stacks a quarter of Workers, so that they
// serve choices at most a batch old. What was popped and not committed
// when a process dies stays leased, and is served again at resume. A
// store that is a Grouper keeps the writes of the crawl's calls in one
// transaction committed every Config.GroupCommit (250 ms): a crash then
// loses the last group whole, served again at resume too.
//
// Config.Tunnel keeps each topic's off-topic links on a reserve served,
// shallowest first, when the topic's stack runs empty; Config.Promote
// moves a page's reserve links to the stack once its links proved
// on-topic; Config.Sections keeps the links into the directory of an
// on-topic page's own pages (a compound document already found) off the
// stack.
//
// With Config.Sitemaps, the first fetch from a site also reads the site's
// sitemaps (when the Fetcher implements SitemapFetcher): each listed URL,
// which has no link context, is scored by the words of its URL path and
// pushed like a link of that page, under the page's own links
// (sitemaps.go); the page record carries the sitemaps read, refused ones
// with their reason.
//
// Redirects are not followed inside a fetch (fetch.WithoutRedirects):
// every hop is checked like a link. A focused crawl follows a hop to a URL
// it does not know at once; a hop to a known URL (and every hop of the
// bfs queue) ends the fetch, which becomes an alias of the target
// (Page.RedirectTo), not a page, and the target goes through the
// frontier. A page reached under several URLs is stored once
// (redirect.go).
//
// A Scorer that also implements LinkScorer sees each link's target URL (an
// evaluation oracle built from labels does).
package crawler

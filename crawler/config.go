package crawler

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/urlnorm"
)

// Strategy is how a crawl decides which links to follow.
type Strategy string

// The crawl strategies.
const (
	// StrategyLink scores each link's context segment for every topic and
	// pushes the target on the stacks of the topics it reaches (the paper).
	StrategyLink Strategy = "link"
	// StrategyLinkBacklinks is StrategyLink with a model trained with
	// backlink segments; the crawler treats it exactly like StrategyLink.
	StrategyLinkBacklinks Strategy = "link+backlinks"
	// StrategyPage classifies the whole page and, for each topic it is
	// relevant to, pushes all its links (the classic focused crawler).
	StrategyPage Strategy = "page"
	// StrategyBFS follows every link breadth-first, with no classifier.
	StrategyBFS Strategy = "bfs"
)

// ParseStrategy checks a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case StrategyLink, StrategyLinkBacklinks, StrategyPage, StrategyBFS:
		return st, nil
	}
	return "", fmt.Errorf("unknown strategy %q (want link, link+backlinks, page or bfs)", s)
}

// Frontier names how the per-topic stacks are served.
type Frontier string

// The frontier kinds.
const (
	FrontierStack     Frontier = "stack"      // LIFO per topic (the paper)
	FrontierBestFirst Frontier = "best-first" // highest link score first, per topic
)

// Config sets a crawl's policies. The zero value of a field means its
// documented default.
type Config struct {
	// Name identifies the crawl in the store; running again with the same
	// name resumes it. Default "default".
	Name     string
	Strategy Strategy // default StrategyLink
	Frontier Frontier // default FrontierStack; ignored by bfs (FIFO)
	// Workers is the number of pages fetched at once. Default 16.
	Workers int
	// MaxPages stops the crawl after this many pages fetched successfully
	// (failed fetches, such as 404s or robots.txt refusals, are recorded
	// but do not count), including those of earlier runs of a resumed
	// crawl. 0: no limit.
	MaxPages int
	// MaxFetches stops the crawl after this many fetches, failed or not.
	// 0: no limit.
	MaxFetches int
	// MaxPagesPerTopic caps the fetches popped from one topic's stack.
	MaxPagesPerTopic int
	// MaxDepth is the deepest link distance from a seed that is followed;
	// 0 means no limit.
	MaxDepth int
	// MaxPerHost caps the fetches of one host's URLs, failed ones included;
	// 0 means no limit.
	MaxPerHost int
	// MaxFrontierPerHost and MaxFrontier bound the URLs waiting to be
	// fetched, per host and in all, so that a link farm or a site with
	// endless generated URLs cannot grow the store without end: once a
	// host has MaxFrontierPerHost URLs waiting (or the crawl MaxFrontier),
	// its new URLs are not queued, and the store counts them as dropped
	// for the host. URLs already known are still pushed (moved to the top
	// of a stack). 0 means the default (DefaultMaxFrontierPerHost,
	// DefaultMaxFrontier); negative means no bound.
	MaxFrontierPerHost, MaxFrontier int
	// Tunnel keeps the links a topic's classifier finds off-topic on the
	// topic's reserve, and when the topic's stack runs empty the crawl
	// goes on from the shallowest of them (fewest links from a seed; the
	// highest score among equals), tunnelling through off-topic pages
	// instead of stopping: near the seeds sit the site's listings, which
	// lead to many pages. Off by default (the paper's
	// crawler follows on-topic links only); ignored by bfs and page.
	Tunnel bool
	// Promote, with Tunnel, moves a page's reserve links for a topic to
	// the topic's stack once at least 3 pages fetched through the page's
	// links are known and at least half of them are on-topic: a listing
	// whose first entries proved relevant is followed to its end. It
	// remembers the last 4,096 pages with reserve links. Off by default.
	Promote bool
	// Sections treats an on-topic page as the entry of a compound
	// document — a course's home page with its assignments and notes
	// below it — whose parts lie in one directory: its own when it is
	// the directory's page (a path ending in "/", index.html and the
	// like, or a file named after the directory, /cs302/cs302.html), the
	// folder named after it otherwise (/courses/cs100.html:
	// /courses/cs100/); a host's root is left alone. It sends the links
	// into that directory to the topic's parts, served (with Tunnel)
	// after its reserve, or drops them (without), instead of pushing them
	// on the topic's stack: the pages of a document already found are not more
	// entries. It remembers the last 65,536 such directories found; a
	// resumed crawl reads them back from the pages it committed (a Store
	// that is a PageReader; with another it learns them again). Off by
	// default; ignored by bfs.
	Sections bool
	// Lockstep fetches in rounds: the stacks (or best-first queues) give
	// up to Workers entries at once, and the next round starts once all
	// of them are fetched and committed in the order they were taken. A
	// crawl then fetches the same pages, in the same order, whatever the
	// fetches' timing (breadth-first crawls always do), at the cost of
	// waiting for each round's slowest fetch: for experiments that must
	// repeat exactly. Off by default.
	Lockstep bool
	// Overlap, with Lockstep, fetches each round while the round before
	// it is committed: a round is popped one round earlier (its pop sees
	// the rounds before the last), the link values its fetches give
	// new links are those learnt through the round before the last, and
	// a redirect's target is queued, not fetched in the same fetch (as
	// breadth-first does). The crawl still repeats exactly. Ignored with
	// SiteNorm. Off by default.
	Overlap bool
	// Speculate, with Lockstep, guesses each round from memory — the
	// entries the last pop saw next on the stack, and the pushes and
	// rescores of the round just fetched — and fetches the guess while
	// the store commits that round and pops the next. The store's pop
	// decides: a guessed entry it takes is fetched already, one it takes
	// that was not guessed is fetched then, and a guessed fetch it does
	// not take is discarded, and its answer kept for the fetch that
	// takes its entry later (keptFetches): the server is not asked twice.
	// The crawl fetches, commits and learns exactly what it would without
	// Speculate; a wrong guess costs work (Summary.Discarded) and time,
	// never a different crawl. Ignored with Overlap or SiteNorm, and when
	// the store does not read ahead (Peeker) it guesses from the pushes
	// alone. Off by default.
	Speculate bool
	// Learner, when set, gives the value of every link and learns from
	// the crawl's own pages (see Learner); the stacks are then served
	// best first, Tunnel and Promote do not apply, and Sections sends the
	// links into a found document to the topic's parts, served once the
	// stack is empty. Only the link strategies take one.
	Learner Learner
	// LearnerMemoryEvery: with a Learner that keeps a memory of the
	// links it found (Rememberer), the periodic save of its state (every
	// 200 pages) also holds that memory once this long has passed since
	// the last such save, so that a crawl killed without its end resumes
	// still remembering most of them; a crawl that ends always saves it.
	// Default 1 minute (DefaultLearnerMemoryEvery); negative: only at
	// the end.
	LearnerMemoryEvery time.Duration
	// Survey, with best-first order (Frontier best-first or a Learner),
	// fetches each seed's own links before any deeper entry (SurveyFirst):
	// the navigation of the seeds' sites, a few dozen pages a site, is
	// where a site's listings are linked from, and a learner that has
	// seen where each of them leads learns the site before it commits to
	// the best-scored links. Ignored by bfs and stacks.
	Survey bool
	// Known are URLs already in hand, such as the pages the model learnt
	// from: links to them are never followed.
	Known []urlnorm.URL
	// Learnt are the pages the crawl's model and learner learnt from (its
	// examples, its negatives, the pages whose links it trained on). The
	// crawl keeps them in the store beside its pages (CrawlSpec.Learnt) so
	// that a report of it counts none of them as found.
	Learnt []urlnorm.URL
	// Sitemaps reads the sitemaps of each site (robots.txt Sitemap:
	// lines, /sitemap.xml) at the first fetch from it that does not fail, when the Fetcher
	// implements SitemapFetcher, and pushes the URLs they list, scored by
	// their URL's words (see sitemaps.go). Off by default.
	Sitemaps bool
	// SiteNorm, when set, measures which extended normalizations each
	// host tolerates and applies those it adopts to the URLs pushed on the
	// frontier (site-based normalization; see sitenorm.go). Nil: none.
	SiteNorm *sitenorm.Rules
	// URLs tells whether a URL is known to the crawl, for redirects and
	// site-based normalization; nil means the Store when it implements
	// URLLookup (set it when the Store is wrapped).
	URLs URLLookup
	// Shared is the store's SharedFrontier, through which processes
	// sharing a crawl wait for each other's work before ending; nil means
	// the Store when it implements SharedFrontier (set it when the Store
	// is wrapped).
	Shared SharedFrontier
	// MaxURLLength drops longer URLs (spider traps). Default 2048.
	MaxURLLength int
	// Scope, when set, tells whether the crawl may follow a URL it found:
	// nil when it may, else why not (scope.Rules.Check). A link, a
	// redirect's target or a sitemap's URL out of scope is not followed;
	// an entry out of scope when popped (a crawl resumed with a narrower
	// scope) is recorded as a failed page, "scope: …", without a request.
	// Seeds, given by the user, are fetched whatever it says. Nil: every
	// URL.
	Scope func(urlnorm.URL) error
	// SkipExtensions lists path extensions (lower-case, without the dot)
	// of links that are never followed because they name documents that
	// are not HTML: fetching them would only be refused on their content
	// type. Nil means DefaultSkipExtensions; an empty slice follows all.
	SkipExtensions []string
	// Segment sets the link-context window and extra features.
	Segment segment.Options
	// RetryLater is how many times a page whose fetch failed for a
	// transient reason (no answer, a timeout, a 5xx or 429 answer) is
	// fetched again later, after its host waited (2s, doubled on each
	// failure in a row, up to 5 min); failures while the network is down
	// do not count. Default 4; negative: a failure is final at once.
	RetryLater int
	// MaxOutage is how long a crawl whose fetches get no answer at all (8
	// in a row: the network is down) waits for the network, taking no new
	// pages and probing with one, before it stops with
	// ErrNetworkUnreachable. Default DefaultMaxOutage.
	MaxOutage time.Duration
	// Log, when set, receives notices about the crawl (the network lost
	// and found again), one line each.
	Log io.Writer
	// GroupCommit, when the Store is a Grouper, keeps its writes in one
	// transaction committed at least this often while the crawl runs
	// (group commit): a crash loses at most the last group's results,
	// which a resume fetches again. Default 250ms; negative: every
	// commit of results is a transaction of its own.
	GroupCommit time.Duration
	// Progress, when set, is given the crawl's progress every
	// ProgressEvery and once more when Run ends (Progress.Final), from
	// the goroutine that runs the crawl; it must return quickly.
	Progress      func(Progress)
	ProgressEvery time.Duration // default 1s
	// Opened, when set, is called once the store opened (or resumed) the
	// crawl, before its first fetch: what should be written only for a
	// crawl that runs (a model trained for it) is written there. An
	// error ends the run.
	Opened func(CrawlState) error
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// The default bounds of the frontier (Config.MaxFrontierPerHost,
// MaxFrontier). A waiting URL takes about 250 bytes of store (its row in
// urls and on a stack, with their indexes), so a full frontier is about
// 2.5 MB a host and 250 MB in all. The largest host of the WebKB
// collection has about 4,100 URLs in all.
// DefaultMaxOutage is how long a crawl waits for a network (or a
// database server) it lost before it stops; the commands that read a
// PostgreSQL database wait as long for its server.
const DefaultMaxOutage = 30 * time.Minute

const (
	DefaultMaxFrontierPerHost = 10_000
	DefaultMaxFrontier        = 1_000_000
)

// DefaultLearnerMemoryEvery is how often a crawl saves its learner's
// memory by default (Config.LearnerMemoryEvery). A memory is a few
// megabytes at a few thousand pages; a live crawl fetches some hundred
// pages a minute.
const DefaultLearnerMemoryEvery = time.Minute

// DefaultGroupCommit is how often a crawl commits its store's group of
// writes by default (Config.GroupCommit).
var DefaultGroupCommit = 250 * time.Millisecond

// DefaultSkipExtensions are the extensions of non-HTML documents that a
// crawl does not follow by default.
var DefaultSkipExtensions = []string{
	"ps", "eps", "pdf", "dvi", "tex", "gz", "z", "tgz", "tar", "zip", "bz2", "rar", "7z",
	"jpg", "jpeg", "gif", "png", "bmp", "tif", "tiff", "ico", "svg", "xbm", "pbm", "ppm",
	"mp3", "mp4", "mpg", "mpeg", "avi", "mov", "wav", "au", "aiff", "ra", "ram", "wmv", "flv",
	"exe", "bin", "dmg", "iso", "jar", "class", "deb", "rpm",
	"doc", "docx", "ppt", "pptx", "xls", "xlsx", "rtf", "odt",
	"txt", "c", "h", "cc", "cpp", "java", "f", "for", "lisp", "scm", "pl", "py", "sh", "asm", "css", "js",
}

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "default"
	}
	if c.Strategy == "" {
		c.Strategy = StrategyLink
	}
	if c.Frontier == "" {
		c.Frontier = FrontierStack
	}
	if c.Workers == 0 {
		c.Workers = 16
	}
	if c.MaxURLLength == 0 {
		c.MaxURLLength = 2048
	}
	if c.SkipExtensions == nil {
		c.SkipExtensions = DefaultSkipExtensions
	}
	if c.MaxFrontierPerHost == 0 {
		c.MaxFrontierPerHost = DefaultMaxFrontierPerHost
	}
	if c.MaxFrontier == 0 {
		c.MaxFrontier = DefaultMaxFrontier
	}
	if c.RetryLater == 0 {
		c.RetryLater = 4
	}
	if c.MaxOutage == 0 {
		c.MaxOutage = DefaultMaxOutage
	}
	if c.ProgressEvery == 0 {
		c.ProgressEvery = time.Second
	}
	if c.LearnerMemoryEvery == 0 {
		c.LearnerMemoryEvery = DefaultLearnerMemoryEvery
	}
	if c.GroupCommit == 0 {
		c.GroupCommit = DefaultGroupCommit
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// MaxWorkers is the most pages a crawl fetches at once (Config.Workers).
const MaxWorkers = 1024

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	if c.Strategy != "" {
		if _, err := ParseStrategy(string(c.Strategy)); err != nil {
			return err
		}
	}
	switch c.Frontier {
	case "", FrontierStack, FrontierBestFirst:
	default:
		return fmt.Errorf("unknown frontier %q (want stack or best-first)", c.Frontier)
	}
	switch {
	case c.Workers < 0 || c.Workers > MaxWorkers:
		return fmt.Errorf("workers must be between 1 and %d", MaxWorkers)
	case c.MaxPages < 0, c.MaxFetches < 0, c.MaxPagesPerTopic < 0, c.MaxDepth < 0, c.MaxPerHost < 0:
		return errors.New("page, depth and host limits must not be negative")
	case c.MaxOutage < 0:
		return errors.New("max outage must not be negative")
	case c.MaxURLLength < 0:
		return errors.New("max URL length must not be negative")
	case c.Segment.Window < 0:
		return errors.New("segment window must not be negative")
	case c.Promote && !c.Tunnel:
		return errors.New("promote needs tunnel: it moves links from the reserve")
	case c.Learner != nil && c.Strategy != "" && c.Strategy != StrategyLink && c.Strategy != StrategyLinkBacklinks:
		return fmt.Errorf("a link learner needs a link strategy, not %s", c.Strategy)
	case c.Learner != nil && (c.Tunnel || c.Promote):
		return errors.New("a link learner keeps every link on the stacks: tunnel and promote do not apply")
	}
	return nil
}

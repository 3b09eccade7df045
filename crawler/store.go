package crawler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/scent-crawler/scent/fetch"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/urlnorm"
)

// Store keeps the state of crawls: the frontier, the visited set and the
// fetched pages with their links. Every method is called from a single
// goroutine of a Crawler.
type Store interface {
	// OpenCrawl creates the crawl named spec.Name, pushing spec.Seeds on
	// every stack, or resumes it: URLs leased to fetches that never
	// committed go back on top of their stacks.
	OpenCrawl(ctx context.Context, spec CrawlSpec) (CrawlState, error)
	// Pop removes up to n entries from topic's stack in the given order and
	// leases their URLs. Entries whose URL was already leased or fetched are
	// skipped, as are those whose host reached maxPerHost (when > 0).
	Pop(ctx context.Context, crawl int64, topic string, order Order, n, maxPerHost int) ([]Entry, error)
	// Commit stores fetched pages with their links, marks their URLs
	// fetched and pushes new entries, in one transaction. An entry whose
	// URL already waits on the same stack moves to its top, keeping the
	// higher of its two scores; on the bfs queue (topic "") it keeps its
	// first place, as breadth-first order requires. A successful page
	// whose final URL another page of the crawl already holds is kept as
	// an alias, not a page: Commit sets its Failure and RedirectTo, so
	// that every final URL is one page. Page.Redirects, NormPairs and
	// NormRules are kept with the record.
	Commit(ctx context.Context, crawl int64, pages []*Page, push []Entry) error
	// FrontierSizes returns the number of entries waiting on each stack:
	// not those whose URL was since leased or fetched through another
	// stack, whose rows stay until a pop of their stack meets them.
	FrontierSizes(ctx context.Context, crawl int64) (map[string]int, error)
	// FinishCrawl records that the crawl ended with the given reason.
	FinishCrawl(ctx context.Context, crawl int64, reason string) error
	// Rescore sets the score of each entry still waiting on its stack
	// (Entry.Topic); entries no longer waiting there are ignored.
	Rescore(ctx context.Context, crawl int64, entries []Entry) error
	// SaveLearner keeps the state of the crawl's learner; OpenCrawl gives
	// it back in CrawlState.Learner when the crawl resumes.
	SaveLearner(ctx context.Context, crawl int64, state []byte) error
}

// A Wrapper is a Store that adds to another (writing an archive,
// counting metrics) and passes the rest of its work on to it. The
// crawler finds the optional interfaces below (Grouper, Peeker, …) on
// the store a wrapper wraps when the wrapper itself has none (StoreAs),
// so a wrapper changes nothing of what the crawl does.
type Wrapper interface {
	Unwrap() Store
}

// StoreAs reports whether s, or a store that s wraps (Wrapper), is a T,
// and returns the first that is, looking from s inwards.
func StoreAs[T any](s Store) (T, bool) {
	for s != nil {
		if t, ok := s.(T); ok {
			return t, true
		}
		w, ok := s.(Wrapper)
		if !ok {
			break
		}
		s = w.Unwrap()
	}
	var zero T
	return zero, false
}

// A Grouper is a Store that can keep the writes of its calls in one
// transaction committed every so often (group commit) instead of one
// transaction per call: a crash then loses the calls of the group not
// committed, all of them together, which a resume serves again as it
// does fetches in flight. A crawl groups its store's writes while it
// runs (Config.GroupCommit) and commits the group when it ends.
type Grouper interface {
	// GroupCommits commits the open group and then groups the writes of
	// the following calls, committing them at least every d; 0 makes each
	// call its own transaction again.
	GroupCommits(ctx context.Context, d time.Duration) error
}

// A Peeker is a Store whose pop also reads the entries that come next on
// the stack, without taking them: a lockstep crawl that guesses its next
// round (Config.Speculate) guesses it from them and the pushes of the
// round before (guess.go).
type Peeker interface {
	// PopPeek is Pop, and up to peek of the entries that would come after
	// those it takes, in order, still waiting.
	PopPeek(ctx context.Context, crawl int64, topic string, order Order, n, maxPerHost, peek int) (taken, next []Entry, err error)
}

// A FloorPopper is a Store that can stop a pop at a floor (Deferrer):
// PopFloor is PopPeek that takes no entry valued below floor (in
// SurveyFirst order, none past the survey's shallow entries) and reports
// whether it stopped at one. The entries it took stay taken. A store
// that is no Peeker gives no next entries.
type FloorPopper interface {
	PopFloor(ctx context.Context, crawl int64, topic string, order Order, n, maxPerHost, peek int, floor float64) (taken, next []Entry, stopped bool, err error)
}

// A Preparer is a Store that does the work of storing a page that needs
// no database — its encoding, compression — on the goroutine that
// fetched it (Prepare, called by the crawl's workers, concurrently), so
// that the crawl's one committer only writes. Prepare keeps what it makes
// in Page.Prepared; Commit uses it when the page still holds what it was
// made from.
type Preparer interface {
	Prepare(p *Page)
}

// CrawlSpec identifies a crawl and what it was started with.
type CrawlSpec struct {
	Name     string
	Strategy Strategy
	Stacks   []string // the frontier's stacks: the topics (and their reserves), or one "" queue for bfs
	// SeedStacks are the stacks a new crawl's seeds are pushed on; nil
	// means all of Stacks.
	SeedStacks []string
	Topics     []string // the scorer's topics, the keys of Page.Scores; may be empty
	Seeds      []urlnorm.URL
	Config     string // the crawl's settings as JSON, kept for reports
	// MinHash are the parameters Page.Signature is made with. A store
	// keeping a near-duplicate index must refuse parameters other than
	// those of its index. Nil means pages carry no signatures.
	MinHash *minhash.Params
	// MaxWaitingPerHost and MaxWaiting bound the URLs waiting to be
	// fetched, per host and in all: a new URL beyond them is not queued
	// and is counted as dropped for its host. 0 means no bound.
	MaxWaitingPerHost, MaxWaiting int
	// Learnt are the pages the crawl's model and learner learnt from,
	// kept with the crawl so that a report never counts them as found.
	// A resumed crawl adds those not kept yet.
	Learnt []urlnorm.URL
}

// CrawlState is what OpenCrawl found.
type CrawlState struct {
	ID        int64
	Resumed   bool
	Fetched   int            // pages already committed
	Succeeded int            // of Fetched, those without failure
	ByTopic   map[string]int // pages committed per stack
	Requeue   int            // in-flight URLs put back on their stacks
	Learner   []byte         // the learner's state last saved, or nil
	// Others counts the processes running the crawl beside this one when
	// it opened (a store shared by many processes): this process joins
	// them rather than resuming a crawl that stopped.
	Others int
}

// Order is how a stack is served.
type Order int

// Orders of the frontier.
const (
	LIFO       Order = iota // per-topic stacks (the paper)
	FIFO                    // breadth-first queue
	BestFirst               // highest score first
	Shallowest              // fewest links from a seed first, then highest score
	// SurveyFirst serves the seeds and their own links (depth at most
	// SurveyDepth) first, then every other entry highest score first;
	// within each part the highest score first.
	SurveyFirst
)

// SurveyDepth is how many links from a seed the entries lie that
// SurveyFirst serves first: a seed's own links, its site's navigation.
const SurveyDepth = 1

// Entry is one URL waiting on a topic's stack.
type Entry struct {
	Topic  string
	URL    urlnorm.URL
	Depth  int
	Score  float64
	Parent urlnorm.URL // zero for seeds
}

// Page is the record of one fetch, successful or not: scent's one page
// record. The crawler fills it and commits it to a Store; a store's read
// of a crawl (EachPage of the SQLite and PostgreSQL stores) gives it back,
// without the fields that read says it leaves out and with Order and
// DuplicateOf, which only the store knows. What reads a crawl (report,
// export, experiments, archives) takes it as it is: it lives here, beside
// the Store that keeps it, so those packages import crawler and crawler
// imports none of them. URLs are urlnorm.URL throughout, and Scores and
// Relevant are keyed by topic, so a reader needs no topic order.
type Page struct {
	// Order is the page's place in its crawl's fetch order, set by a
	// store's read; 0 before the page is committed.
	Order    int
	URL      urlnorm.URL
	FinalURL urlnorm.URL
	// Topic is the topic the page was fetched for: it was popped from
	// that topic's stack or from its reserve or parts (Stack.Topic of
	// any Kind); "" for the bfs queue.
	Topic       string
	Depth       int
	Status      int
	FetchedAt   time.Time
	Duration    time.Duration
	Size        int
	ContentType string
	ETag        string
	Modified    string // Last-Modified as sent
	ContentHash string // hex SHA-256 of the body
	Title       string
	Text        string
	// Signature is the min-hash signature of Text (CrawlSpec.MinHash),
	// with which the store decides whether the page is a near-duplicate of
	// a page stored before; the zero value for failed pages.
	Signature minhash.Signature
	// DuplicateOf is the URL of the page this one is a near-duplicate of
	// (the earliest stored page of its group, maybe of another crawl),
	// set by a store's read; zero when the page is no duplicate.
	DuplicateOf urlnorm.URL
	// Scores is the page classifier's relevance score per topic (the
	// topics of CrawlSpec.Topics) and Relevant its verdict; both nil
	// without a classifier.
	Scores   map[string]float64
	Relevant map[string]bool
	Failure  string // "reason: detail" when the fetch or parse failed
	// Redirects are the redirect hops the fetch met, in order; the
	// store records each as an alias of its target.
	Redirects []Redirect
	// RedirectTo is the target of a redirect the fetch did not follow
	// (Status 3xx): the record is no page, URL is an alias of RedirectTo,
	// which is fetched through its own frontier entry or was fetched
	// already (redirect.go). The store sets it, with Failure, on a page
	// whose final URL another page of the crawl already holds.
	RedirectTo urlnorm.URL
	Links      []Link
	// NormPairs are the normalized pairs measured with this page
	// (Config.SiteNorm) and NormRules the rules they changed, for the
	// store to keep.
	NormPairs []sitenorm.Pair
	NormRules []sitenorm.Rule
	// Exchanges are the fetch's requests and responses as sent and
	// received (fetch.Config.KeepRaw), which the store keeps compressed;
	// nil when raw responses are not kept.
	Exchanges []*fetch.Exchange
	// Sitemaps are the sitemaps of the page's site read at this fetch
	// (Config.Sitemaps; the first fetch from the site), with their URLs
	// and lastmod, or why each was refused.
	Sitemaps []fetch.Sitemap
	// Prepared is what the store's Prepare made of the page (Preparer);
	// the store's own.
	Prepared any
}

// CheckScores returns an error unless p has no scores or one score for
// each of topics (the crawl's CrawlSpec.Topics) and no other: what a
// Store checks before it keeps them.
func (p *Page) CheckScores(topics []string) error {
	for _, l := range p.Links {
		if len(l.Scores) != 0 && len(l.Scores) != len(topics) {
			return fmt.Errorf("page %s: link to %s: %d scores for %d topics", p.URL, l.Target, len(l.Scores), len(topics))
		}
	}
	if len(p.Scores) == 0 {
		return nil
	}
	if len(p.Scores) != len(topics) {
		return fmt.Errorf("page %s: %d scores for %d topics", p.URL, len(p.Scores), len(topics))
	}
	for _, t := range topics {
		if _, ok := p.Scores[t]; !ok {
			return fmt.Errorf("page %s: no score for topic %q", p.URL, t)
		}
	}
	return nil
}

// AliasOf turns p, a successful fetch whose final URL final the crawl
// already holds as the stored page id, into an alias of that page, as a
// Store's Commit does (Store): the record keeps no page content, says
// where it is stored in its Failure, and ends its redirects with the hop
// to final when the last hop recorded is not to final.
func (p *Page) AliasOf(final urlnorm.URL, id int64) {
	p.RedirectTo = final
	p.Failure = fmt.Sprintf("redirect: to %s, stored as page %d", final, id)
	p.Title, p.Text, p.Links, p.Signature, p.Scores, p.Relevant = "", "", nil, minhash.Signature{}, nil, nil
	if p.URL != final && (len(p.Redirects) == 0 || p.Redirects[len(p.Redirects)-1].Target != final) {
		p.Redirects = append(p.Redirects, Redirect{URL: p.URL, Target: final, Status: p.Status})
	}
}

// ParseURLs sets URL, FinalURL and DuplicateOf (left zero when dupOf is
// empty) from the strings a store keeps them as, for a store's read. The
// store wrote them normalized, so they parse; one that does not is an
// error of the store.
func (p *Page) ParseURLs(u, final, dupOf string) error {
	var err error
	if p.URL, err = urlnorm.Parse(u); err != nil {
		return fmt.Errorf("read page %d: %w", p.Order, err)
	}
	if p.FinalURL, err = urlnorm.Parse(final); err != nil {
		return fmt.Errorf("read page %d: final URL: %w", p.Order, err)
	}
	if dupOf == "" {
		return nil
	}
	if p.DuplicateOf, err = urlnorm.Parse(dupOf); err != nil {
		return fmt.Errorf("read page %d: duplicate of: %w", p.Order, err)
	}
	return nil
}

// Redirect is one redirect hop: URL answered Status with Location Target.
type Redirect struct {
	URL, Target urlnorm.URL
	Status      int
}

// Link is one hyperlink of a fetched page with its context and scores:
// scent's one link record. The crawler fills it in Page.Links and commits
// it; a store's read of a crawl's links (EachLink of the SQLite and
// PostgreSQL stores) gives it back inside a PageLink, and reports take
// that. Unlike Page.Scores, Scores is a slice in the crawl's topic order
// (CrawlSpec.Topics), not a map: a crawl keeps tens of links a page, and
// two topics' scores cost a link 16 bytes in one allocation as a slice,
// 256 bytes in two as a map. A reader looks a score up by topic through
// PageLink.Score, which knows that order. A stored target parses again
// (urlnorm's Parse of a URL's String is that URL), so a store's read
// gives back the Link committed (ParseTarget).
type Link struct {
	Target  urlnorm.URL
	Anchor  string
	Context string    // before + anchor + after tokens, space separated
	Scores  []float64 // per topic (CrawlSpec.Topics order); nil when not scored
}

// ParseTarget sets Target from the text a store keeps it as and checks
// the Scores the store kept against the crawl's number of topics: the
// one read of a stored link, for a store's read. The store wrote a
// normalized target and one score per topic or none (Page.CheckScores),
// so a target that does not parse or another count is an error of the
// store.
func (l *Link) ParseTarget(target string, topics int) error {
	var err error
	if l.Target, err = urlnorm.Parse(target); err != nil {
		return fmt.Errorf("read link: %w", err)
	}
	if len(l.Scores) != 0 && len(l.Scores) != topics {
		return fmt.Errorf("read link to %s: %d scores for %d topics", l.Target, len(l.Scores), topics)
	}
	return nil
}

// PageLink is a stored link as a store's read of a crawl's links gives it
// back: the Link as committed, the page it was found on and the crawl's
// topics, which say what its Scores are scores of.
type PageLink struct {
	Link
	// Parent is the final URL of the page the link was found on, as in
	// Entry.Parent.
	Parent urlnorm.URL
	// Topics are the crawl's topics (CrawlSpec.Topics), in the order of
	// Link.Scores; a read shares one slice between all its links.
	Topics []string
}

// Score returns the link's score for topic; false when the link was not
// scored or topic is not one of the crawl's topics. It is the one place
// that turns a link's scores, kept in topic order, into scores by topic.
func (l *PageLink) Score(topic string) (float64, bool) {
	i := slices.Index(l.Topics, topic)
	if i < 0 || i >= len(l.Scores) {
		return 0, false
	}
	return l.Scores[i], true
}

// URLLookup is an optional interface of a Store that tells whether a URL
// is known to a crawl: waiting on a stack (known), or leased to a fetch
// or fetched (known and taken). Unlike the Store's other methods it must
// be safe to call from any goroutine.
type URLLookup interface {
	KnownURL(ctx context.Context, crawl int64, u urlnorm.URL) (known, taken bool, err error)
}

// PageReader is an optional interface of a Store that reads a crawl's
// pages back in commit order, as EachPage of the SQLite and PostgreSQL
// stores does (URL, FinalURL, Failure and Relevant set). A resumed crawl
// rebuilds from them what its frontier remembers only in memory
// (Config.Sections), so that it goes on as the crawl that was never
// stopped would.
type PageReader interface {
	EachPage(ctx context.Context, crawl int64, fn func(*Page) error) error
}

// SharedFrontier is an optional interface of a Store whose crawl is
// shared by several processes: when this process finds nothing to pop and
// has no fetch in flight, others may still push entries or give back the
// URLs leased by a process that died. AwaitWork blocks while that can
// happen and reports whether the crawl's frontier has entries to pop
// again (true) or the crawl is done for every process (false).
type SharedFrontier interface {
	AwaitWork(ctx context.Context, crawl int64) (bool, error)
}

// CrawlCounter is an optional interface of a Store whose crawl several
// processes share (SharedFrontier): the crawl's counts, all its
// processes together, which the progress of each process tells.
type CrawlCounter interface {
	CrawlCounts(ctx context.Context, crawl int64) (CrawlCounts, error)
}

// CrawlCounts are a crawl's committed fetches, successful pages and, per
// topic, pages the page classifier found on-topic, all runs and all
// processes together.
type CrawlCounts struct {
	Fetched, Succeeded int
	Relevant           map[string]int
}

// ErrSharedBudgetSpent is what AwaitWork returns, with false, when the
// crawl is done because its processes together reached its budget (not
// because its frontier ran dry): the crawl then ends "budget reached".
var ErrSharedBudgetSpent = errors.New("the crawl's processes together reached its budget")

package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// ErrNetworkUnreachable ends a crawl that could reach no server for
// Config.MaxOutage. The pages it could not fetch stay on the frontier: the
// same crawl run again fetches them.
var ErrNetworkUnreachable = errors.New("network unreachable")

// errRetryLater is what the outage fetcher gives the worker for a page
// whose fetch failed for a transient reason: the worker drops the result
// as canceled, and the scheduler sends the entry again later.
var errRetryLater = errors.New("transient failure: fetched again later")

// Outage handling. A page whose fetch fails for a transient reason (a
// network failure, a timeout, a 5xx or 429 answer) is fetched again later:
// its host waits hostBackoffFirst, doubled on each failure in a row up to
// hostBackoffMax, and the page gives up after Config.RetryLater tries,
// recorded with the failure's reason. When outageAfter pages in a row get
// no answer at all (a page put off because its host waits after no answer
// counts while no other fetch got one since), or outageQuiet has passed
// without any answer and 3 in a row failed, the network is down: the
// crawl takes no new URL from the frontier and probes with one waiting
// page, of another host each time, after probeFirst, doubled up to
// probeMax, until a fetch gets an answer.
// When every waiting host was tried, the URL that answered last (the
// canary) probes, and a new page from the frontier may: a canary that
// answers while the waiting hosts do not says that they, not the network,
// are down, and the crawl goes on, their pages using their tries.
// Failures while the network is down do not count against a page's
// tries. After Config.MaxOutage it stops with ErrNetworkUnreachable.
const (
	outageAfter      = 8
	outageQuiet      = 10 * time.Second
	hostBackoffFirst = 2 * time.Second
	hostBackoffMax   = 5 * time.Minute
	probeFirst       = time.Second
	probeMax         = 30 * time.Second
	maxWaiting       = 1 << 14 // pages waiting to be fetched again, at most
	maxDead          = 1 << 14 // hosts known down while the network works, at most
	maxBackoffHosts  = 1 << 14 // hosts waiting after a failure, past which those whose wait is over are forgotten
)

// outage wraps the crawl's fetcher to keep transient failures from being
// final, and tells the scheduler when to pause, what to send again and
// when. Its fetcher side runs in the workers, its scheduler side in the
// crawl loop; a mutex serializes them.
type outage struct {
	inner      Fetcher
	retryLater int
	maxOutage  time.Duration
	log        io.Writer
	now        func() time.Time

	mu         sync.Mutex
	tries      map[urlnorm.URL]int // transient failures of a page outside outages
	hosts      map[string]*backoff
	netFails   int // pages in a row that got no answer
	lastAnswer time.Time
	down       bool
	downSince  time.Time
	lastErr    string
	probe      time.Duration // wait before the next probe
	nextProbe  time.Time
	probing    bool            // a probe is in flight
	probed     map[string]bool // hosts probed in this round of the outage
	probeNew   bool            // every waiting host was probed: a new page may probe
	waiting    []waitingEntry
	gaveUp     bool

	// canary is the URL of the last fetch that got an answer; while the
	// network is down it probes when every waiting host was tried.
	canary     urlnorm.URL
	dead       map[string]bool // hosts that did not answer while the canary did: their failures say nothing of the network
	ctx        context.Context // the run's, for the canary's fetch
	stopCanary context.CancelFunc
	canaries   sync.WaitGroup
}

type backoff struct {
	fails       int
	next        time.Time
	unreachable bool      // the last failure got no answer
	failed      time.Time // when
}

type waitingEntry struct {
	e   Entry
	due time.Time
}

func newOutage(ctx context.Context, inner Fetcher, cfg Config) *outage {
	ctx, stop := context.WithCancel(ctx)
	return &outage{inner: inner, retryLater: cfg.RetryLater, maxOutage: cfg.MaxOutage, log: cfg.Log, now: time.Now,
		tries: make(map[urlnorm.URL]int), hosts: make(map[string]*backoff),
		probed: make(map[string]bool), dead: make(map[string]bool), lastAnswer: time.Now(), ctx: ctx, stopCanary: stop}
}

// close stops a canary in flight and waits for it.
func (o *outage) close() {
	o.stopCanary()
	o.canaries.Wait()
}

// unwrapOutage returns the fetcher an outage wraps, or f itself, so that
// a second Run of a Crawler wraps its own fetcher once.
func unwrapOutage(f Fetcher) Fetcher {
	if o, ok := f.(*outage); ok {
		return o.inner
	}
	return f
}

// noAnswer counts a page that got no answer and declares the network down
// when too many did; o.mu is held.
func (o *outage) noAnswer(why string) {
	o.netFails++
	if why != "" {
		o.lastErr = why
	}
	if o.down || o.retryLater < 0 {
		return
	}
	if o.netFails >= outageAfter || o.netFails >= 3 && o.now().Sub(o.lastAnswer) >= outageQuiet {
		o.down = true
		o.downSince = o.now()
		o.probe = probeFirst
		o.nextProbe = o.now().Add(o.probe)
		clear(o.probed)
		o.logf("network unreachable: %d pages in a row got no answer (last: %s); the crawl takes no new pages and tries again every %s to %s, for up to %s (Ctrl-C stops it; the same command resumes)",
			o.netFails, o.lastErr, probeFirst, probeMax, o.maxOutage)
	}
}

// pruneHosts forgets the hosts whose wait is over, when the hosts that
// failed are too many to keep (o.mu held): memory stays bounded however
// many hosts keep failing, at the cost of their next wait starting
// short again.
func (o *outage) pruneHosts() {
	now := o.now()
	for h, b := range o.hosts {
		if !now.Before(b.next) {
			delete(o.hosts, h)
		}
	}
}

// answered notes that the fetch of u got an answer: the network works;
// o.mu is held. A network found down comes up again, saying so with
// format (of the outage's length).
func (o *outage) answered(u urlnorm.URL, format string) {
	o.netFails = 0
	o.lastAnswer = o.now()
	o.canary = u
	delete(o.dead, u.Host())
	if !o.down {
		return
	}
	o.logf(format, o.now().Sub(o.downSince).Round(time.Second))
	o.down = false
	o.probing = false
	for i := range o.waiting {
		o.waiting[i].due = time.Time{}
	}
	clear(o.hosts)
}

// probeCanary fetches the canary once, in the background, while the
// network is found down and every waiting host was tried; o.mu is held.
func (o *outage) probeCanary() {
	u := o.canary
	o.probing = true
	o.canaries.Add(1)
	go func() {
		defer o.canaries.Done()
		_, err := o.inner.Fetch(o.ctx, u, nil)
		o.mu.Lock()
		defer o.mu.Unlock()
		o.probing = false
		if o.ctx.Err() != nil || err != nil && fetch.Unreachable(err) {
			return
		}
		for _, w := range o.waiting {
			if len(o.dead) < maxDead {
				o.dead[w.e.URL.Host()] = true
			}
		}
		o.answered(u, "pause of %s over: "+u.Host()+" answers where the waiting pages' hosts did not, so those hosts are down, not the network; the crawl goes on, their pages using their tries")
	}()
}

func (o *outage) logf(format string, args ...any) {
	if o.log != nil {
		fmt.Fprintf(o.log, "%s "+format+"\n", append([]any{o.now().UTC().Format(time.RFC3339)}, args...)...)
	}
}

// Sitemaps reads origin's sitemaps through the wrapped fetcher, or
// returns none when it cannot read sitemaps.
func (o *outage) Sitemaps(ctx context.Context, origin string, allow func(urlnorm.URL) error) ([]fetch.Sitemap, error) {
	if sf, ok := o.inner.(SitemapFetcher); ok {
		return sf.Sitemaps(ctx, origin, allow)
	}
	return nil, nil
}

// Fetch fetches u unless its host is waiting after a transient failure;
// a transient failure becomes errRetryLater unless the page has used its
// tries.
func (o *outage) Fetch(ctx context.Context, u urlnorm.URL, hdr http.Header) (*fetch.Result, error) {
	host := u.Host()
	o.mu.Lock()
	if b := o.hosts[host]; b != nil && !o.down && o.now().Before(b.next) && len(o.waiting) < maxWaiting {
		if b.unreachable && !o.lastAnswer.After(b.failed) && !o.dead[host] {
			o.noAnswer("") // nothing answered since its host did not
		}
		o.mu.Unlock()
		return nil, &fetch.Error{URL: u, Reason: fetch.ReasonCanceled, Err: errRetryLater}
	}
	o.mu.Unlock()
	res, err := o.inner.Fetch(ctx, u, hdr)
	if ctx.Err() != nil || fetch.ReasonOf(err) == fetch.ReasonCanceled {
		return res, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err == nil || !fetch.Unreachable(err) {
		o.answered(u, "network reachable again after %s: the crawl goes on")
	}
	if err == nil || !fetch.Transient(err) || o.retryLater < 0 {
		delete(o.tries, u)
		if err == nil || !fetch.Transient(err) {
			// A page fetched or a final answer (a 404): the host's
			// failures in a row are over.
			delete(o.hosts, host)
		}
		return res, err
	}
	unreachable := fetch.Unreachable(err)
	if unreachable && !o.dead[host] {
		o.noAnswer(err.Error())
		if o.down {
			// outages do not use a page's tries
			return nil, &fetch.Error{URL: u, Reason: fetch.ReasonCanceled, Err: errRetryLater}
		}
	}
	o.tries[u]++
	if o.tries[u] > o.retryLater || len(o.waiting) >= maxWaiting {
		delete(o.tries, u)
		return res, err // final: recorded with its reason
	}
	b := o.hosts[host]
	if b == nil {
		if len(o.hosts) >= maxBackoffHosts {
			o.pruneHosts()
		}
		b = &backoff{}
		o.hosts[host] = b
	}
	b.fails++
	b.unreachable, b.failed = unreachable, o.now()
	wait := hostBackoffFirst << min(b.fails-1, 20)
	b.next = o.now().Add(min(wait, hostBackoffMax))
	return nil, &fetch.Error{URL: u, Reason: fetch.ReasonCanceled, Err: errRetryLater}
}

// received notes a result in the crawl loop: the entry of a fetch that
// must be tried again (retryAt, the URL whose fetch failed: the entry's,
// its canonical form or a redirect's target) waits for that URL's host.
func (o *outage) received(e Entry, retryAt urlnorm.URL) {
	o.mu.Lock()
	defer o.mu.Unlock()
	// While the network is down a probe is sent only when nothing else is
	// in flight, so any result is the probe's, whatever it was.
	o.probing = false
	if retryAt.IsZero() {
		return
	}
	var due time.Time
	if b := o.hosts[retryAt.Host()]; b != nil {
		due = b.next
	}
	o.waiting = append(o.waiting, waitingEntry{e: e, due: due})
}

// discarded notes a result the crawl drops unseen (a guessed fetch no
// pop took, guess.go): its entry is not tried again.
func (o *outage) discarded(urlnorm.URL) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.probing = false
}

// due appends to pending the waiting entries whose time has come: all of
// them while the network works, one probe at a time while it is down.
func (o *outage) due(pending []Entry, inflight int) []Entry {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	if o.down {
		if o.maxOutage > 0 && now.Sub(o.downSince) >= o.maxOutage {
			o.gaveUp = true
			return pending
		}
		if o.probing || inflight > 0 || now.Before(o.nextProbe) {
			return pending
		}
		o.probe = min(2*o.probe, probeMax)
		o.nextProbe = now.Add(o.probe)
		for i, w := range o.waiting {
			if h := w.e.URL.Host(); !o.probed[h] {
				o.probed[h] = true
				o.probing = true
				o.waiting = append(o.waiting[:i], o.waiting[i+1:]...)
				return append(pending, w.e)
			}
		}
		// Every waiting host was tried: the canary probes, and the next
		// probe may be a new page.
		clear(o.probed)
		o.probeNew = true
		if !o.canary.IsZero() {
			o.probeCanary()
		}
		return pending
	}
	kept := o.waiting[:0]
	for _, w := range o.waiting {
		if !now.Before(w.due) {
			pending = append(pending, w.e)
		} else {
			kept = append(kept, w)
		}
	}
	clear(o.waiting[len(kept):])
	o.waiting = kept
	return pending
}

// paused reports whether the network is down: no new entries are popped
// while a waiting one can probe it.
func (o *outage) paused() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.probeNew {
		o.probeNew = false
		return false
	}
	return o.down && (len(o.waiting) > 0 || o.probing)
}

// waitingCount is the number of entries waiting to be fetched again.
func (o *outage) waitingCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.waiting)
}

// idle reports whether no entry waits to be fetched again.
func (o *outage) idle() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.waiting) == 0 && !o.down
}

// stopped returns ErrNetworkUnreachable, wrapped with what failed, once
// the network has been down for MaxOutage.
func (o *outage) stopped() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.gaveUp {
		return nil
	}
	o.logf("network unreachable for %s: the crawl stops; the same command resumes it", o.now().Sub(o.downSince).Round(time.Second))
	return fmt.Errorf("%w for %s (last failure: %s); %d page(s) wait to be fetched again: run the same command to resume",
		ErrNetworkUnreachable, o.now().Sub(o.downSince).Round(time.Second), o.lastErr, len(o.waiting))
}

// wake returns a channel that fires when the next waiting entry, probe or
// the end of the outage is due, or nil when nothing waits.
func (o *outage) wake() <-chan time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	var next time.Time
	switch {
	case o.down:
		next = o.nextProbe
		if o.maxOutage > 0 {
			if end := o.downSince.Add(o.maxOutage); end.Before(next) {
				next = end
			}
		}
	case len(o.waiting) > 0:
		next = o.waiting[0].due
		for _, w := range o.waiting[1:] {
			if w.due.Before(next) {
				next = w.due
			}
		}
	default:
		return nil
	}
	return time.After(max(time.Until(next), time.Millisecond))
}

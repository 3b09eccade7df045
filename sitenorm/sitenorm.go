package sitenorm

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/urlnorm"
)

// Outcome is what applying an extended normalization to one URL does
// (paper 003, Table 1).
type Outcome int

// The four outcomes.
const (
	NonLoss Outcome = iota // no document lost
	Loss                   // the document at u1 is lost
	Gain                   // a new document is found at u2
	Change                 // the document at u1 is lost and another gained
)

var outcomeNames = [...]string{"non-loss", "loss", "gain", "change"}

// String returns the paper's name of o.
func (o Outcome) String() string {
	if o < NonLoss || o > Change {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// ParseOutcome is the inverse of Outcome.String.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("sitenorm: unknown outcome %q", s)
}

// Doc is what a fetch of one URL gave.
type Doc struct {
	// Present is true when a document was served (status 2xx, no failure).
	Present bool
	Status  int
	// Final is the URL the document was served at, after redirects.
	Final urlnorm.URL
	// Redirected is true when Final differs from the URL requested.
	Redirected bool
	// Hash is the hex SHA-256 of the body; Sig the min-hash signature of
	// its text (the zero value when the text is too short to sign).
	Hash string
	Sig  minhash.Signature
}

// Same reports whether a and b are the same document: the same final URL,
// the same bytes, or near-duplicate text (min-hash, SPEC §6).
func Same(a, b Doc) bool {
	if !a.Present || !b.Present {
		return false
	}
	if a.Final == b.Final || a.Hash != "" && a.Hash == b.Hash {
		return true
	}
	return a.Sig.Indexable() && b.Sig.Indexable() && minhash.NearDuplicate(a.Sig, b.Sig)
}

// Classify returns the outcome of normalizing u1 (document p1) into u2
// (document p2); known says whether u2 was already in the crawl's
// database.
func Classify(p1, p2 Doc, known bool) Outcome {
	switch {
	case p1.Present && Same(p1, p2):
		return NonLoss
	case p1.Present && !p2.Present:
		return Loss
	case p1.Present && known:
		return Loss
	case p1.Present:
		return Change
	case known:
		return NonLoss
	case p2.Present:
		return Gain
	default:
		return NonLoss
	}
}

// Pair is one measured pair.
type Pair struct {
	Host       string
	Ext        urlnorm.Extension
	URL        urlnorm.URL // u1
	Normalized urlnorm.URL // u2 = URL.Extend(Ext)
	Outcome    Outcome
	// Present is whether p1 was present; Direct whether u2 was served
	// without a redirect.
	Present, Direct bool
	// Fetches is how many requests the pair cost (0–2: u1 and u2 may
	// have been fetched by the crawl already).
	Fetches int
	Detail  string // statuses and final URLs, for the record
	At      time.Time
}

// Counts are a host's outcomes for one EN.
type Counts struct {
	Loss, Gain, Change, NonLoss int
}

// Add counts o.
func (c *Counts) Add(o Outcome) {
	switch o {
	case Loss:
		c.Loss++
	case Gain:
		c.Gain++
	case Change:
		c.Change++
	default:
		c.NonLoss++
	}
}

// N is the number of pairs counted.
func (c Counts) N() int { return c.Loss + c.Gain + c.Change + c.NonLoss }

// Rates returns LR, GR, CR and NR, which sum to 1 (all 0 without pairs).
func (c Counts) Rates() (lr, gr, cr, nr float64) {
	n := float64(c.N())
	if n == 0 {
		return 0, 0, 0, 0
	}
	return float64(c.Loss) / n, float64(c.Gain) / n, float64(c.Change) / n, float64(c.NonLoss) / n
}

// Analogy is the paper's A_i: 0 when the four rates are 0.25, 1 when one
// of them is 1.
func (c Counts) Analogy() float64 {
	lr, gr, cr, nr := c.Rates()
	sq := func(x float64) float64 { return (0.25 - x) * (0.25 - x) }
	return 2 * math.Sqrt((sq(lr)+sq(gr)+sq(cr)+sq(nr))/3)
}

// NonLossDominant reports whether NR is the largest of the four rates.
func (c Counts) NonLossDominant() bool {
	return c.NonLoss > c.Loss && c.NonLoss > c.Gain && c.NonLoss > c.Change
}

// Policy sets how Rules samples and decides. The zero value of each field
// means its documented default.
type Policy struct {
	// Sample is the number of pairs with p1 present measured per host and
	// EN before the EN is decided. Default 3.
	Sample int
	// MinAnalogy is the least A_i of an adopted EN, with NR_i dominant.
	// Default 0.88 (the paper's: one rate above 0.91).
	MinAnalogy float64
	// MaxShare caps the requests of all measurements at this share of the
	// crawl's fetches. Default 0.05.
	MaxShare float64
	// VerifyEvery is how many pages of a host with an adopted EN pass
	// between two checks that the host still tolerates it; 0 means 100,
	// negative never.
	VerifyEvery int
	// MaxHosts caps the hosts whose rules are held in memory. Past it,
	// the hosts seen longest ago with no EN adopted are forgotten first
	// (measured anew if they come back, within MaxShare), then, if every
	// host has one adopted, the hosts seen longest ago. The store keeps
	// every rule; a forgotten host's URLs are pushed as they are until
	// its rules are measured again. Default 20,000 (a host's six rules
	// take 1.3 KB of heap: BenchmarkRules_hostMemory).
	MaxHosts int
	// Extensions are the ENs measured and applied, in the order applied.
	// Default EN1, EN2, EN4, EN5, EN6, EN3 (the document names are
	// removed before the trailing slash, which they leave).
	Extensions []urlnorm.Extension
}

func (p Policy) withDefaults() Policy {
	if p.Sample <= 0 {
		p.Sample = 3
	}
	if p.MinAnalogy == 0 {
		p.MinAnalogy = 0.88
	}
	if p.MaxShare == 0 {
		p.MaxShare = 0.05
	}
	if p.VerifyEvery == 0 {
		p.VerifyEvery = 100
	}
	if p.MaxHosts <= 0 {
		p.MaxHosts = 20_000
	}
	if len(p.Extensions) == 0 {
		p.Extensions = []urlnorm.Extension{urlnorm.EN1LowerPath, urlnorm.EN2LowerQuery, urlnorm.EN4IndexHTM,
			urlnorm.EN5IndexHTML, urlnorm.EN6DefaultHTM, urlnorm.EN3TrailingSlash}
	}
	return p
}

// State is a host's standing with one EN.
type State int

// The states of an EN on a host.
const (
	Sampling State = iota // pairs are being measured
	Adopted               // applied to the host's URLs
	Rejected              // not applied (a loss, a change, a redirect, or too few non-losses)
	Dropped               // was adopted; a later loss took it back
)

var stateNames = [...]string{"sampling", "adopted", "rejected", "dropped"}

// String names s.
func (s State) String() string {
	if s < Sampling || s > Dropped {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// Rule is a host's counts and standing with one EN.
type Rule struct {
	Host   string
	Ext    urlnorm.Extension
	Counts Counts // every pair measured
	// Sampled counts the pairs with p1 present that the decision used;
	// Direct those of them whose u2 was served without a redirect.
	Sampled, Direct int
	State           State
	At              time.Time // of the last pair
}

type hostRules struct {
	rules map[urlnorm.Extension]*Rule
	pages int    // pages seen since the last verification
	seen  uint64 // Rules.clock when last observed or counted
}

// adopted reports whether an EN is adopted on the host.
func (hr *hostRules) adopted() bool {
	for _, ru := range hr.rules {
		if ru.State == Adopted {
			return true
		}
	}
	return false
}

// Rules holds every host's rules. The zero value is not usable; use
// NewRules.
type Rules struct {
	p       Policy
	mu      sync.Mutex
	hosts   map[string]*hostRules
	fetches int // the crawl's fetches
	spent   int // requests of the measurements observed
	// view is what Wants, Allow and Verify answer from: the state as of
	// the last Publish (dirty: the hosts changed since).
	view  ruleView
	dirty map[string]bool
	clock uint64 // counts host lookups that change a host, for MaxHosts
}

// ruleView is the published state of the rules.
type ruleView struct {
	fetches, spent int
	hosts          map[string]hostView
}

type hostView struct {
	states map[urlnorm.Extension]State
	pages  int
}

// Publish makes the rules' current state the one Wants, Allow and Verify
// answer from. A crawl publishes when it takes new entries from its
// frontier: the fetches of one lockstep round then all decide from the
// state the previous round left, whatever order they run and commit in.
func (r *Rules) Publish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.view.fetches, r.view.spent = r.fetches, r.spent
	if r.view.hosts == nil {
		r.view.hosts = make(map[string]hostView)
	}
	for h := range r.dirty {
		hr := r.hosts[h]
		hv := hostView{states: make(map[urlnorm.Extension]State, len(hr.rules)), pages: hr.pages}
		for e, ru := range hr.rules {
			hv.states[e] = ru.State
		}
		r.view.hosts[h] = hv
	}
	clear(r.dirty)
}

// NewRules returns empty rules deciding by p.
func NewRules(p Policy) *Rules {
	return &Rules{p: p.withDefaults(), hosts: make(map[string]*hostRules), dirty: make(map[string]bool)}
}

// Policy returns the policy with its defaults filled in.
func (r *Rules) Policy() Policy { return r.p }

func (r *Rules) host(h string) *hostRules {
	r.dirty[h] = true
	hr := r.hosts[h]
	if hr == nil {
		if len(r.hosts) >= r.p.MaxHosts {
			r.forget()
		}
		hr = &hostRules{rules: make(map[urlnorm.Extension]*Rule)}
		r.hosts[h] = hr
	}
	r.clock++
	hr.seen = r.clock
	return hr
}

// forget drops a quarter of MaxHosts (at least one host): first the
// hosts seen longest ago with no EN adopted, then, if that is not
// enough, the hosts seen longest ago. Sorting once per quarter keeps a
// new host's cost logarithmic on average.
func (r *Rules) forget() {
	type aged struct {
		host    string
		adopted bool
		seen    uint64
	}
	all := make([]aged, 0, len(r.hosts))
	for h, hr := range r.hosts {
		all = append(all, aged{h, hr.adopted(), hr.seen})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].adopted != all[j].adopted {
			return !all[i].adopted
		}
		return all[i].seen < all[j].seen
	})
	n := max(1, r.p.MaxHosts/4)
	for _, a := range all[:min(n, len(all))] {
		delete(r.hosts, a.host)
		delete(r.view.hosts, a.host)
		delete(r.dirty, a.host)
	}
}

func (hr *hostRules) rule(h string, e urlnorm.Extension) *Rule {
	ru := hr.rules[e]
	if ru == nil {
		ru = &Rule{Host: h, Ext: e}
		hr.rules[e] = ru
	}
	return ru
}

// CountFetch counts n fetches of the crawl itself, on which the
// measurements' share is reckoned.
func (r *Rules) CountFetch(n int) {
	r.mu.Lock()
	r.fetches += n
	r.mu.Unlock()
}

// Spent returns the requests of the measurements observed and the
// crawl's fetches counted.
func (r *Rules) Spent() (measure, crawl int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent, r.fetches
}

// Allow reports whether a measurement of n requests fits in the share of
// the crawl's fetches (Policy.MaxShare), counting the requests of the
// pairs observed, as of the last Publish: the fetches of one lockstep
// round all get the same answer (the round's own measurements may pass
// the share by at most one round's worth).
func (r *Rules) Allow(n int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return float64(r.view.spent+n) <= r.p.MaxShare*float64(r.view.fetches)
}

// Wants lists the ENs for which a URL of host fetched by the crawl (with
// its page present) should be measured now: those still sampling, as of
// the last Publish.
func (r *Rules) Wants(host string) []urlnorm.Extension {
	r.mu.Lock()
	defer r.mu.Unlock()
	hv, ok := r.view.hosts[host]
	var out []urlnorm.Extension
	for _, e := range r.p.Extensions {
		if st, seen := hv.states[e]; !ok || !seen || st == Sampling {
			out = append(out, e)
		}
	}
	return out
}

// CountPage counts a committed page of host towards its next check
// (Policy.VerifyEvery).
func (r *Rules) CountPage(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if hr := r.hosts[host]; hr != nil {
		hr.pages++
		r.dirty[host] = true
		r.clock++
		hr.seen = r.clock
	}
}

// Verify returns the ENs adopted for host when Policy.VerifyEvery of its
// pages were committed since its last check, as of the last Publish: the
// crawl checks one pair of each to catch a host whose behaviour changed.
// Observing a check's pair starts the count again.
func (r *Rules) Verify(host string) []urlnorm.Extension {
	if r.p.VerifyEvery < 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hv, ok := r.view.hosts[host]
	if !ok || hv.pages < r.p.VerifyEvery {
		return nil
	}
	var adopted []urlnorm.Extension
	for _, e := range r.p.Extensions {
		if hv.states[e] == Adopted {
			adopted = append(adopted, e)
		}
	}
	return adopted
}

// Observe counts a measured pair and decides its host's EN; it returns
// the rule as it now stands.
func (r *Rules) Observe(p Pair) Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spent += p.Fetches
	hr := r.host(p.Host)
	ru := hr.rule(p.Host, p.Ext)
	ru.Counts.Add(p.Outcome)
	ru.At = p.At
	switch ru.State {
	case Adopted:
		hr.pages = 0 // a check
		if p.Present && p.Outcome != NonLoss {
			ru.State = Dropped
		}
	case Sampling:
		if !p.Present {
			break
		}
		ru.Sampled++
		if p.Direct {
			ru.Direct++
		}
		if p.Outcome == Loss || p.Outcome == Change || !p.Direct {
			ru.State = Rejected
			break
		}
		if ru.Sampled >= r.p.Sample {
			c := ru.Counts
			if c.Loss == 0 && c.Change == 0 && c.NonLossDominant() && c.Analogy() >= r.p.MinAnalogy {
				ru.State = Adopted
			} else {
				ru.State = Rejected
			}
		}
	}
	return *ru
}

// Restore puts back a rule saved by a previous run of the crawl.
func (r *Rules) Restore(ru Rule) {
	r.mu.Lock()
	cp := ru
	r.host(ru.Host).rules[ru.Ext] = &cp
	r.mu.Unlock()
	r.Publish()
}

// Canonical returns u with the ENs adopted for its host applied, in the
// policy's order. It never changes the scheme, host or port.
func (r *Rules) Canonical(u urlnorm.URL) urlnorm.URL {
	if u.IsZero() {
		return u
	}
	r.mu.Lock()
	hr := r.hosts[u.Host()]
	var exts []urlnorm.Extension
	if hr != nil {
		for _, e := range r.p.Extensions {
			if ru := hr.rules[e]; ru != nil && ru.State == Adopted {
				exts = append(exts, e)
			}
		}
	}
	r.mu.Unlock()
	if len(exts) == 0 {
		return u
	}
	return Canonical(u, exts)
}

// CanonicalPublished is Canonical by the rules as last published
// (Publish): the form a fetch taken from the frontier goes by, so that a
// lockstep crawl fetches the same URLs whatever the timing.
func (r *Rules) CanonicalPublished(u urlnorm.URL) urlnorm.URL {
	if u.IsZero() {
		return u
	}
	r.mu.Lock()
	hv, ok := r.view.hosts[u.Host()]
	var exts []urlnorm.Extension
	if ok {
		for _, e := range r.p.Extensions {
			if hv.states[e] == Adopted {
				exts = append(exts, e)
			}
		}
	}
	r.mu.Unlock()
	if len(exts) == 0 {
		return u
	}
	return Canonical(u, exts)
}

// Canonical applies exts to u until nothing changes, so that the result
// is a fixed point: applying exts again gives it back. Every round that
// changes u lower-cases it or shortens it, so the loop ends.
func Canonical(u urlnorm.URL, exts []urlnorm.Extension) urlnorm.URL {
	for {
		v := u.Extend(exts...)
		if v == u {
			break
		}
		u = v
	}
	return u
}

// Snapshot returns every rule, by host and EN.
func (r *Rules) Snapshot() []Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Rule
	for _, hr := range r.hosts {
		for _, ru := range hr.rules {
			out = append(out, *ru)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Ext < out[j].Ext
	})
	return out
}

// ParseState is the inverse of State.String.
func ParseState(s string) (State, error) {
	for i, n := range stateNames {
		if n == s {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("sitenorm: unknown state %q", s)
}

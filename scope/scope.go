package scope

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/scent-crawler/scent/urlnorm"
)

// Config lists what a crawl keeps to and leaves out. Empty lists set no
// bound: every host, every URL.
type Config struct {
	// Domains are the hosts the crawl keeps to, each with every host
	// under it; empty: any host.
	Domains []string `json:"domains,omitempty"`
	// ExcludeDomains are hosts left alone, each with every host under it,
	// even under a domain of Domains.
	ExcludeDomains []string `json:"exclude_domains,omitempty"`
	// IncludeURLs: when any, a URL must match one of these patterns. A
	// pattern is matched against the normalized URL (urlnorm), whose
	// host is in punycode and whose path and query are percent-encoded.
	IncludeURLs []string `json:"include_urls,omitempty"`
	// ExcludeURLs: a URL that matches one of these patterns is left out.
	ExcludeURLs []string `json:"exclude_urls,omitempty"`
}

// Rules are a Config checked and compiled. The zero Rules (and a nil
// *Rules) keep every URL in scope.
type Rules struct {
	domains, excludeDomains []string
	include, exclude        []*regexp.Regexp
}

// An Error is an entry of a Config that New refuses.
type Error struct {
	List  string // the list: "domains", "exclude-domains", "include-urls" or "exclude-urls"
	Entry string // the entry as given
	Why   string // what is wrong with it
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %q %s", e.List, e.Entry, e.Why) }

// New checks c and compiles its rules. The first entry that is not a host
// name (a URL, a host with a port, spaces) or not a regular expression is
// refused with an *Error.
func New(c Config) (*Rules, error) {
	r := &Rules{}
	for _, l := range []struct {
		name string
		in   []string
		out  *[]string
	}{{"domains", c.Domains, &r.domains}, {"exclude-domains", c.ExcludeDomains, &r.excludeDomains}} {
		for _, d := range l.in {
			h, why := domain(d)
			if why != "" {
				return nil, &Error{List: l.name, Entry: d, Why: why}
			}
			*l.out = append(*l.out, h)
		}
	}
	for _, l := range []struct {
		name string
		in   []string
		out  *[]*regexp.Regexp
	}{{"include-urls", c.IncludeURLs, &r.include}, {"exclude-urls", c.ExcludeURLs, &r.exclude}} {
		for _, p := range l.in {
			if strings.TrimSpace(p) == "" {
				return nil, &Error{List: l.name, Entry: p, Why: "is an empty pattern, which would match every URL"}
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, &Error{List: l.name, Entry: p, Why: "is no regular expression: " + err.Error()}
			}
			*l.out = append(*l.out, re)
		}
	}
	return r, nil
}

// domain normalizes one entry of a list of domains as urlnorm writes a
// URL's host: lower case, internationalized names in punycode, an IPv6
// address in brackets (given with or without); a leading "." or "*." is
// dropped. why says what is wrong with an entry refused.
func domain(d string) (host, why string) {
	s := strings.TrimSpace(d)
	s = strings.TrimPrefix(s, "*.")
	s = strings.TrimPrefix(s, ".")
	s = strings.TrimSuffix(s, ".")
	if ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); ip != nil {
		if ip.To4() != nil {
			return ip.String(), ""
		}
		return "[" + ip.String() + "]", "" // as a URL's host writes it
	}
	if s == "" || strings.ContainsAny(s, "/:?#@[] \t") {
		return "", "is no host or domain name (write example.org, not a URL)"
	}
	u, err := urlnorm.Parse("http://" + s + "/")
	if err != nil {
		return "", "is no host or domain name: " + err.Error()
	}
	return u.Host(), ""
}

// IsZero reports whether r sets no bound.
func (r *Rules) IsZero() bool {
	return r == nil || len(r.domains)+len(r.excludeDomains)+len(r.include)+len(r.exclude) == 0
}

// Check returns nil when u is in scope, else an error that names the
// rule u breaks.
func (r *Rules) Check(u urlnorm.URL) error {
	if r.IsZero() {
		return nil
	}
	host := hostname(u.Host())
	if len(r.domains) > 0 && under(host, r.domains) == "" {
		return fmt.Errorf("host %s is under none of the domains kept to (%s)", host, strings.Join(r.domains, ", "))
	}
	if d := under(host, r.excludeDomains); d != "" {
		return fmt.Errorf("host %s is under the excluded domain %s", host, d)
	}
	s := u.String()
	if len(r.include) > 0 && !matchesAny(r.include, s) {
		return errors.New("the URL matches none of the URL patterns kept to")
	}
	for _, re := range r.exclude {
		if re.MatchString(s) {
			return fmt.Errorf("the URL matches the excluded pattern %q", re.String())
		}
	}
	return nil
}

// hostname is host without its port.
func hostname(host string) string {
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i > 0 {
			return host[:i+1]
		}
		return host
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		return host[:i]
	}
	return host
}

// under returns the domain of domains that host is or is under, or "".
// An IP address is under itself alone: 0.0.1 is no domain of 10.0.0.1.
func under(host string, domains []string) string {
	ip := strings.HasPrefix(host, "[") || net.ParseIP(host) != nil
	for _, d := range domains {
		if host == d || !ip && strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.' {
			return d
		}
	}
	return ""
}

func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

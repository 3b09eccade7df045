package scope

import (
	"errors"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestRules_Check(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    Config
		in   []string
		out  map[string]string // URL → a word of the reason
	}{
		{"no bounds", Config{}, []string{"http://a.test/", "https://b.example:8443/x?y"}, nil},
		{"domains keep hosts under them", Config{Domains: []string{"Example.ORG", ".edu", "*.cs.test."}},
			[]string{"http://example.org/", "http://www.example.org/a", "http://cs.cornell.edu/", "http://a.cs.test:8080/", "http://cs.test/"},
			map[string]string{
				"http://badexample.org/":        "none of the domains",
				"http://example.org.evil.test/": "none of the domains",
				"http://education.test/":        "none of the domains",
				"http://www.test/":              "none of the domains",
			}},
		{"an excluded domain wins", Config{Domains: []string{"example.org"}, ExcludeDomains: []string{"ads.example.org"}},
			[]string{"http://example.org/", "http://www.example.org/", "http://pads.example.org/"},
			map[string]string{"http://ads.example.org/": "excluded domain ads.example.org", "http://x.ads.example.org/a": "excluded domain"}},
		{"internationalized domains", Config{Domains: []string{"bücher.example"}},
			[]string{"http://www.bücher.example/", "http://xn--bcher-kva.example/"},
			map[string]string{"http://bucher.example/": "none of the domains"}},
		{"IP addresses are hosts of their own", Config{Domains: []string{"10.0.0.1", "0.0.2", "[::1]", "2001:DB8::1"}, ExcludeDomains: []string{"::2"}},
			[]string{"http://10.0.0.1:8080/", "http://[::1]:8080/", "http://[2001:db8::1]/", "http://a.0.0.2/"},
			map[string]string{
				"http://10.0.0.2/":  "none of the domains",
				"http://110.0.0.1/": "none of the domains",
				"http://[::2]/":     "none of the domains",
			}},
		{"an excluded IPv6 address", Config{ExcludeDomains: []string{"::2", "[2001:db8::0:1]"}},
			[]string{"http://[::1]/", "http://[2001:db8::2]/"},
			map[string]string{"http://[::2]:80/": "excluded domain [::2]", "http://[2001:db8::1]/": "excluded domain [2001:db8::1]"}},
		{"URL patterns", Config{IncludeURLs: []string{`^https?://[^/]+/(courses|people)/`}, ExcludeURLs: []string{`/calendar/`, `[?&]replytocom=`}},
			[]string{"http://a.test/courses/cs100/", "http://b.test/people/x.html?a=1"},
			map[string]string{
				"http://a.test/news/":                     "none of the URL patterns",
				"http://a.test/courses/calendar/2026/11/": `excluded pattern "/calendar/"`,
				"http://a.test/people/x?replytocom=3":     "excluded pattern",
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.in {
				if err := r.Check(urlnorm.MustParse(s)); err != nil {
					t.Errorf("%s: %v, want in scope", s, err)
				}
			}
			for s, why := range tt.out {
				err := r.Check(urlnorm.MustParse(s))
				if err == nil || !strings.Contains(err.Error(), why) {
					t.Errorf("%s: %v, want out of scope: %s", s, err, why)
				}
			}
		})
	}
}

func TestRules_zero(t *testing.T) {
	var r *Rules
	if err := r.Check(urlnorm.MustParse("http://a.test/")); err != nil || !r.IsZero() {
		t.Errorf("nil rules: %v, zero %v", err, r.IsZero())
	}
	r, err := New(Config{Domains: []string{"a.test"}, ExcludeURLs: []string{"x"}})
	if err != nil || r.IsZero() {
		t.Errorf("rules: %v, zero %v", err, r.IsZero())
	}
}

func TestNew_errors(t *testing.T) {
	for _, tt := range []struct {
		c    Config
		want string
	}{
		{Config{Domains: []string{"http://example.org/"}}, `domains: "http://example.org/" is no host or domain name (write example.org, not a URL)`},
		{Config{Domains: []string{""}}, `domains: "" is no host`},
		{Config{ExcludeDomains: []string{"a.test:8080"}}, `exclude-domains: "a.test:8080" is no host`},
		{Config{Domains: []string{"a b.test"}}, `domains: "a b.test" is no host`},
		{Config{IncludeURLs: []string{"("}}, `include-urls: "(" is no regular expression: error parsing regexp: missing closing ): ` + "`(`"},
		{Config{ExcludeURLs: []string{" "}}, `exclude-urls: " " is an empty pattern, which would match every URL`},
		{Config{Domains: []string{"a.test", "/"}, ExcludeURLs: []string{"[z-a]"}}, `domains: "/" is no host`},
	} {
		_, err := New(tt.c)
		var se *Error
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an *Error %q", tt.c, err, tt.want)
		}
	}
}

// FuzzNew: any lists give rules or an error, never a panic, and rules
// check any URL without one.
func FuzzNew(f *testing.F) {
	f.Add("example.org", "ads.example.org", "^https?://", "/calendar/", "http://www.example.org/a?b")
	f.Add("*.edu", "", "", "[?&]session=", "http://[::1]:8080/")
	f.Add("bücher.example", ".", "(", "", "http://xn--bcher-kva.example/")
	f.Fuzz(func(t *testing.T, dom, exdom, inc, exc, raw string) {
		var c Config
		if dom != "" {
			c.Domains = []string{dom}
		}
		if exdom != "" {
			c.ExcludeDomains = []string{exdom}
		}
		if inc != "" {
			c.IncludeURLs = []string{inc}
		}
		if exc != "" {
			c.ExcludeURLs = []string{exc}
		}
		r, err := New(c)
		if err != nil {
			return
		}
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return
		}
		if err := r.Check(u); err != nil && err.Error() == "" {
			t.Errorf("an empty reason for %s", u)
		}
		if dom != "" && r.Check(u) == nil {
			h, _ := domain(dom)
			host := hostname(u.Host())
			if host != h && !strings.HasSuffix(host, "."+h) {
				t.Errorf("%s in scope of domain %q (%s)", u, dom, h)
			}
		}
	})
}

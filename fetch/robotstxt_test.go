package fetch

import (
	"fmt"
	"testing"
	"time"
)

func TestParseRobots_allowed(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		uri   string
		allow bool
	}{
		// RFC 9309 §5.2: the longest match wins, allow on a tie.
		{"longer allow", "User-agent: *\nAllow: /p\nDisallow: /\n", "/page", true},
		{"equal allow and disallow", "User-agent: *\nAllow: /folder\nDisallow: /folder\n", "/folder/page", true},
		{"equal, disallow first", "User-agent: *\nDisallow: /folder\nAllow: /folder\n", "/folder/page", true},
		{"wildcard longer than prefix", "User-agent: *\nAllow: /page\nDisallow: /*.html\n", "/page.html", false},
		{"end anchor on root", "User-agent: *\nAllow: /$\nDisallow: /\n", "/", true},
		{"end anchor on a page", "User-agent: *\nAllow: /$\nDisallow: /\n", "/page.htm", false},
		// Length counts the pattern's octets, "*" and "$" included: 7 < 9.
		{"prefix longer than wildcard", "User-agent: *\nAllow: /*.html\nDisallow: /dir/page\n", "/dir/page.html", false},
		{"prefix longer than wildcard, allow", "User-agent: *\nDisallow: /*.html\nAllow: /dir/page\n", "/dir/page.html", true},
		{"equal lengths with a wildcard", "User-agent: *\nDisallow: /a*b\nAllow: /a1b\n", "/a1b", true},
		{"anchored extension, query", "User-agent: *\nDisallow: /*.php$\n", "/x.php?a=1", true},
		{"anchored extension", "User-agent: *\nDisallow: /*.php$\n", "/x.php", false},
		{"wildcard in the middle", "User-agent: *\nDisallow: /*/private/*.gif\n", "/a/b/private/c/d.gif", false},
		{"wildcard without its tail", "User-agent: *\nDisallow: /*/private/*.gif\n", "/a/private/d.png", true},
		{"query", "User-agent: *\nDisallow: /*?sid=\n", "/page?sid=1", false},
		{"empty disallow", "User-agent: *\nDisallow:\n", "/a", true},
		{"no rules", "", "/a", true},
		{"not a robots.txt", "<html>not robots</html>", "/a", true},
		// Percent-encoding (§2.2.2): "%7E" is "~"; hex case does not matter.
		{"encoded tilde in the rule", "User-agent: *\nDisallow: /%7Ejoe/\n", "/~joe/index.html", false},
		{"encoded tilde in the URI", "User-agent: *\nDisallow: /~joe/\n", "/%7ejoe/index.html", false},
		{"hex case", "User-agent: *\nDisallow: /a%2fb\n", "/a%2Fb", false},
		{"reserved stays encoded", "User-agent: *\nDisallow: /a/b\n", "/a%2Fb", true},
		{"raw UTF-8 in the rule", "User-agent: *\nDisallow: /café\n", "/caf%C3%A9", false},
		// A line that cannot be read is skipped, not the file.
		{"bad crawl-delay", "User-agent: *\nDisallow: /private\nCrawl-delay: soon\n", "/private", false},
		{"rule before any group", "Disallow: /a\nUser-agent: *\nDisallow: /b\n", "/a", true},
		{"rule before any group, later group", "Disallow: /a\nUser-agent: *\nDisallow: /b\n", "/b", false},
		{"unknown line", "User-agent: *\nNoindex: /b\nDisallow: /a\n", "/a", false},
		{"comment", "User-agent: * # all\nDisallow: /a # not a\n", "/a", false},
		{"byte order mark and CRLF", "\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\r\n", "/a", false},
		{"path without a slash", "User-agent: *\nDisallow: a\n", "/a", false},
		// User agents (§2.2.1): the product token, case-insensitively;
		// groups naming it are combined; "*" only when none does.
		{"own group", "User-agent: scent\nDisallow: /\n\nUser-agent: *\nAllow: /\n", "/a", false},
		{"own group shadows *", "User-agent: *\nDisallow: /a\n\nUser-agent: scent\nDisallow: /b\n", "/a", true},
		{"own group, upper case", "User-agent: SCENT\nDisallow: /\n", "/x", false},
		{"own group with a version", "User-agent: scent/0.1\nDisallow: /\n", "/x", false},
		{"a name that only starts ours", "User-agent: sc\nDisallow: /\n", "/x", true},
		{"a name that ours only starts", "User-agent: scentbot\nDisallow: /\n", "/x", true},
		{"another bot", "User-agent: otherbot\nDisallow: /\n", "/x", true},
		{"several agents, one group", "User-agent: a\nUser-agent: scent\nDisallow: /x\n", "/x", false},
		{"groups combined, first", "User-agent: scent\nDisallow: /a\n\nUser-agent: scent\nDisallow: /b\n", "/a", false},
		{"groups combined, second", "User-agent: scent\nDisallow: /a\n\nUser-agent: scent\nDisallow: /b\n", "/b", false},
		{"* groups combined", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "/a", false},
		{"a rule line ends the agent lines", "User-agent: other\nDisallow: /a\nUser-agent: scent\nDisallow: /b\n", "/a", true},
		{"sitemap does not end a group", "User-agent: *\nDisallow: /\nSitemap: http://x/s.xml\nAllow: /b\n", "/b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRobots([]byte(tt.body), DefaultUserAgent).allowed(tt.uri); got != tt.allow {
				t.Errorf("%q allows %s: %v, want %v", tt.body, tt.uri, got, tt.allow)
			}
		})
	}
}

func TestParseRobots_delayAndSitemaps(t *testing.T) {
	r := parseRobots([]byte("Sitemap: http://a/1.xml\nUser-agent: *\nCrawl-delay: 9\n\nUser-agent: scent\nCrawl-delay: 0.5\n"+
		"Disallow: /x\n\nUser-agent: scent\nCrawl-delay: 2\nSitemap: http://a/2.xml\n"), "scent/0.1")
	if r.crawlDelay != 2*time.Second {
		t.Errorf("crawl delay %s, want 2s (the longest of our groups; not *'s 9s)", r.crawlDelay)
	}
	if got := fmt.Sprint(r.sitemaps); got != "[http://a/1.xml http://a/2.xml]" {
		t.Errorf("sitemaps %s", got)
	}
	if r := parseRobots([]byte("User-agent: *\nCrawl-delay: -1\n"), "scent"); r.crawlDelay != 0 {
		t.Errorf("negative crawl delay read as %s", r.crawlDelay)
	}
}

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		DefaultUserAgent: "scent", "MyBot/2.1": "mybot", " Some_Bot-x ": "some_bot-x", "(odd)": "", "*": "",
	} {
		if got := productToken(in); got != want {
			t.Errorf("productToken(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkRobotsRules_allowed(b *testing.B) {
	r := parseRobots([]byte("User-agent: *\nDisallow: /*?sid=\nDisallow: /cgi-bin/\nAllow: /*.html$\nDisallow: /*/private/*\n"), DefaultUserAgent)
	for b.Loop() {
		r.allowed("/people/~joe/private/notes/index.html?x=1")
	}
}

package fetch

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// robotsRules are the rules of a robots.txt file that apply to one crawler,
// as RFC 9309 reads them:
//
//   - the groups whose user-agent line equals the crawler's product token
//     (case-insensitively) are combined into one; without such a group the
//     groups of "*" are; without either, everything is allowed;
//   - the rule whose path pattern matches the request URI with the most
//     octets wins, and of an allow and a disallow rule of equal length the
//     allow rule; "*" matches any run of characters and a final "$" the
//     end of the URI; a URI no rule matches is allowed;
//   - percent-encoded unreserved characters and the case of
//     percent-encoding hex digits do not matter ("/%7ejoe" is "/~joe");
//   - a line that cannot be read is skipped, not the file.
type robotsRules struct {
	rules      []robotsRule
	crawlDelay time.Duration // the longest Crawl-delay of the groups applied
	sitemaps   []string      // every Sitemap: line of the file
}

type robotsRule struct {
	allow   bool
	pattern string // normalized path pattern
}

// parseRobots reads body, a robots.txt file, for the crawler that calls
// itself agent (a User-Agent header value; its product token, the name
// before any "/" or space, is what the file's user-agent lines name).
func parseRobots(body []byte, agent string) *robotsRules {
	token := productToken(agent)
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	type group struct {
		agents []string
		rules  []robotsRule
		delay  time.Duration
	}
	var (
		groups   []*group
		cur      *group
		inAgents bool // the last group line read was a user-agent line
		sitemaps []string
	)
	for _, line := range strings.FieldsFunc(string(body), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if !inAgents || cur == nil {
				cur = &group{}
				groups = append(groups, cur)
			}
			cur.agents = append(cur.agents, strings.ToLower(value))
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil || value == "" { // a rule outside a group; an empty path is no rule
				continue
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: normalizeRobotsPath(value)})
		case "crawl-delay":
			inAgents = false
			if cur == nil {
				continue
			}
			if s, err := strconv.ParseFloat(value, 64); err == nil && s > 0 && s < 1e6 {
				cur.delay = max(cur.delay, time.Duration(s*float64(time.Second)))
			}
		case "sitemap":
			if value != "" {
				sitemaps = append(sitemaps, value)
			}
		}
	}
	r := &robotsRules{sitemaps: sitemaps}
	for _, name := range []string{token, "*"} {
		if name == "" {
			continue // an agent without a name has no group of its own
		}
		found := false
		for _, g := range groups {
			for _, a := range g.agents {
				if a == name || name != "*" && productToken(a) == name {
					found = true
					r.rules = append(r.rules, g.rules...)
					r.crawlDelay = max(r.crawlDelay, g.delay)
					break
				}
			}
		}
		if found {
			break
		}
	}
	return r
}

// productToken returns the crawler name an agent string starts with,
// lower-cased: "scent/0.1 (focused crawler)" → "scent".
func productToken(agent string) string {
	agent = strings.TrimSpace(agent)
	end := strings.IndexFunc(agent, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_')
	})
	if end >= 0 {
		agent = agent[:end]
	}
	return strings.ToLower(agent)
}

// allowed reports whether the rules allow the request URI uri (path and
// query, as normalized by urlnorm).
func (r *robotsRules) allowed(uri string) bool {
	uri = normalizeRobotsPath(uri)
	best, allow := -1, true
	for _, rule := range r.rules {
		n := len(rule.pattern)
		if (n > best || n == best && rule.allow) && robotsMatch(rule.pattern, uri) {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// robotsMatch reports whether pattern matches the start of uri, "*"
// matching any run of characters and a final "$" the end of uri. The
// literal pieces between the stars are found in turn, each at its first
// place after the one before (for a pattern with no other wildcard the
// first place is never worse than a later one), so a match costs one scan
// of uri per piece: a hostile robots.txt of many starred rules costs
// milliseconds per URL, not a set of positions per pattern byte.
func robotsMatch(pattern, uri string) bool {
	end := strings.HasSuffix(pattern, "$")
	if end {
		pattern = pattern[:len(pattern)-1]
	}
	first, rest, starred := strings.Cut(pattern, "*")
	if !strings.HasPrefix(uri, first) {
		return false
	}
	if !starred {
		return !end || len(uri) == len(first)
	}
	uri = uri[len(first):]
	for {
		piece, more, ok := strings.Cut(rest, "*")
		if !ok { // the last piece
			if end {
				return strings.HasSuffix(uri, piece)
			}
			return strings.Contains(uri, piece)
		}
		i := strings.Index(uri, piece)
		if i < 0 {
			return false
		}
		uri, rest = uri[i+len(piece):], more
	}
}

// normalizeRobotsPath puts a path pattern, or a request URI, in the form
// urlnorm gives URLs (urlnorm.NormalizePercent), so that they compare
// octet by octet. A pattern that starts with neither "/" nor "*" is read
// as starting with "/".
func normalizeRobotsPath(p string) string {
	if p != "" && p[0] != '/' && p[0] != '*' {
		p = "/" + p
	}
	return urlnorm.NormalizePercent(p)
}

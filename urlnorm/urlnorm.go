package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Errors returned by Parse and Resolve; match them with errors.Is.
var (
	// ErrScheme means the URL is not http or https.
	ErrScheme = errors.New("unsupported scheme")
	// ErrHost means the URL has no host or a host that cannot be encoded.
	ErrHost = errors.New("invalid host")
	// ErrSyntax means the URL cannot be parsed at all.
	ErrSyntax = errors.New("invalid URL")
)

// URL is an absolute http or https URL in standard normal form. The zero
// URL is invalid; values come only from Parse, Resolve and Extend, so two
// URLs naming the same resource by standard normalization are equal with ==.
type URL struct {
	s    string
	host int // end of scheme://host[:port] in s
}

// String returns the normalized URL.
func (u URL) String() string { return u.s }

// IsZero reports whether u is the zero URL.
func (u URL) IsZero() bool { return u.s == "" }

// Scheme returns "http" or "https".
func (u URL) Scheme() string {
	i := strings.IndexByte(u.s, ':')
	if i < 0 {
		return ""
	}
	return u.s[:i]
}

// Host returns the normalized host with its port, if not the default one.
func (u URL) Host() string {
	if u.s == "" {
		return ""
	}
	return u.s[len(u.Scheme())+3 : u.host]
}

// Origin returns scheme://host[:port], the unit of politeness and robots.txt.
func (u URL) Origin() string { return u.s[:u.host] }

// RequestURI returns the path and query, e.g. "/a/b?c=d".
func (u URL) RequestURI() string { return u.s[u.host:] }

// Path returns the escaped path without the query.
func (u URL) Path() string {
	p := u.s[u.host:]
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// Query returns the escaped query without the leading "?".
func (u URL) Query() string {
	p := u.s[u.host:]
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[i+1:]
	}
	return ""
}

// Parse normalizes an absolute http or https URL. Surrounding white space
// (including the carriage returns some archives leave) is ignored.
func Parse(raw string) (URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return URL{}, fmt.Errorf("parse %q: %w", raw, ErrSyntax)
	}
	pu, err := url.Parse(raw)
	if err != nil {
		return URL{}, fmt.Errorf("parse %q: %w", raw, ErrSyntax)
	}
	return fromURL(pu, raw)
}

// Resolve resolves ref, which may be relative, against u and normalizes the
// result.
func (u URL) Resolve(ref string) (URL, error) {
	ref = strings.TrimSpace(ref)
	if u.IsZero() {
		return Parse(ref)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return URL{}, fmt.Errorf("parse %q: %w", ref, ErrSyntax)
	}
	if r.IsAbs() {
		return fromURL(r, ref)
	}
	base, err := url.Parse(u.s)
	if err != nil { // cannot happen for a URL made by this package
		return URL{}, fmt.Errorf("parse base %q: %w", u.s, ErrSyntax)
	}
	return fromURL(base.ResolveReference(r), ref)
}

// MustParse is Parse for constants in tests and examples; it panics on error.
func MustParse(raw string) URL {
	u, err := Parse(raw)
	if err != nil {
		panic(err)
	}
	return u
}

func fromURL(pu *url.URL, raw string) (URL, error) {
	scheme := strings.ToLower(pu.Scheme)
	if scheme != "http" && scheme != "https" {
		if scheme == "" {
			return URL{}, fmt.Errorf("parse %q: not absolute: %w", raw, ErrSyntax)
		}
		return URL{}, fmt.Errorf("parse %q: %w %q", raw, ErrScheme, scheme)
	}
	host, err := normalizeHost(pu.Hostname())
	if err != nil {
		return URL{}, fmt.Errorf("parse %q: %w", raw, err)
	}
	port := pu.Port()
	if port != "" {
		for _, c := range port {
			if c < '0' || c > '9' {
				return URL{}, fmt.Errorf("parse %q: port %q: %w", raw, port, ErrSyntax)
			}
		}
		port = strings.TrimLeft(port, "0")
		if n, err := strconv.Atoi(port); port == "" || err != nil || n > 65535 {
			return URL{}, fmt.Errorf("parse %q: port %q: %w", raw, pu.Port(), ErrSyntax)
		}
		if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
			port = ""
		}
	}
	var b strings.Builder
	b.Grow(len(raw) + 8)
	b.WriteString(scheme)
	b.WriteString("://")
	if strings.IndexByte(host, ':') >= 0 { // IPv6 literal
		b.WriteByte('[')
		b.WriteString(host)
		b.WriteByte(']')
	} else {
		b.WriteString(host)
	}
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	hostEnd := b.Len()
	path := removeDotSegments(NormalizePercent(pu.EscapedPath()))
	if path == "" {
		path = "/"
	} else if path[0] != '/' {
		path = "/" + path
	}
	b.WriteString(path)
	if q := pu.RawQuery; q != "" {
		b.WriteByte('?')
		b.WriteString(NormalizePercent(q))
	}
	return URL{s: b.String(), host: hostEnd}, nil
}

var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", ErrHost
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.To4() == nil {
			return strings.ToLower(ip.String()), nil
		}
		return ip.String(), nil
	}
	if strings.Contains(h, "..") {
		return "", fmt.Errorf("%w %q", ErrHost, h)
	}
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			a, err := idnaProfile.ToASCII(h)
			if err != nil {
				return "", fmt.Errorf("%w %q", ErrHost, h)
			}
			// Mapping may leave a root's dot last: a label of
			// characters mapped to nothing (U+034F) drops.
			h = strings.TrimSuffix(a, ".")
			break
		}
	}
	h = strings.ToLower(h)
	if h == "" || h[0] == '.' || strings.Contains(h, "..") {
		return "", fmt.Errorf("%w %q", ErrHost, h)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("%w %q", ErrHost, h)
		}
	}
	return h, nil
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

const upperHex = "0123456789ABCDEF"

// NormalizePercent upper-cases the hex digits of percent-encodings, decodes
// those of unreserved characters and encodes bytes that may not appear raw:
// the form of a normalized URL's path and query, for text compared with
// them octet by octet (robots.txt rules).
func NormalizePercent(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				v := hi<<4 | lo
				if isUnreserved(v) {
					b.WriteByte(v)
				} else {
					b.WriteByte('%')
					b.WriteByte(upperHex[v>>4])
					b.WriteByte(upperHex[v&15])
				}
				i += 2
				continue
			}
		}
		if c == '%' || c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 section 5.2.4.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

package urlnorm

import (
	"fmt"
	"strings"
)

// Extension is one of the extended normalizations of SPEC §5. They may map
// different resources to one URL and are applied only on request.
type Extension int

// The six extended normalizations, numbered as in the paper.
const (
	EN1LowerPath     Extension = iota + 1 // lower-case the path
	EN2LowerQuery                         // lower-case the query
	EN3TrailingSlash                      // remove a trailing slash from a non-root path
	EN4IndexHTM                           // remove a final "index.htm"
	EN5IndexHTML                          // remove a final "index.html"
	EN6DefaultHTM                         // remove a final "default.htm"
)

// Extensions lists every extended normalization in order.
var Extensions = []Extension{EN1LowerPath, EN2LowerQuery, EN3TrailingSlash, EN4IndexHTM, EN5IndexHTML, EN6DefaultHTM}

// String returns the paper's name of e, such as "EN1".
func (e Extension) String() string {
	if e < EN1LowerPath || e > EN6DefaultHTM {
		return fmt.Sprintf("Extension(%d)", int(e))
	}
	return fmt.Sprintf("EN%d", int(e))
}

// Extend applies the given extended normalizations to u, in order.
func (u URL) Extend(exts ...Extension) URL {
	if u.IsZero() {
		return u
	}
	path, query := u.Path(), u.Query()
	for _, e := range exts {
		switch e {
		case EN1LowerPath:
			path = lowerKeepEscapes(path)
		case EN2LowerQuery:
			query = lowerKeepEscapes(query)
		case EN3TrailingSlash:
			if len(path) > 1 && strings.HasSuffix(path, "/") {
				path = strings.TrimSuffix(path, "/")
			}
		case EN4IndexHTM:
			path = trimDocument(path, "index.htm")
		case EN5IndexHTML:
			path = trimDocument(path, "index.html")
		case EN6DefaultHTM:
			path = trimDocument(path, "default.htm")
		}
	}
	s := u.s[:u.host] + path
	if query != "" {
		s += "?" + query
	}
	return URL{s: s, host: u.host}
}

// trimDocument removes a final path segment equal to doc (ASCII case-insensitive).
func trimDocument(path, doc string) string {
	i := strings.LastIndexByte(path, '/')
	if i >= 0 && strings.EqualFold(path[i+1:], doc) {
		return path[:i+1]
	}
	return path
}

// lowerKeepEscapes lower-cases s but keeps percent-encodings upper-case.
func lowerKeepEscapes(s string) string {
	b := []byte(strings.ToLower(s))
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1] = strings.ToUpper(string(b[i+1]))[0]
			b[i+2] = strings.ToUpper(string(b[i+2]))[0]
			i += 2
		}
	}
	return string(b)
}

// ParseExtension is the inverse of Extension.String: "EN1" … "EN6".
func ParseExtension(s string) (Extension, error) {
	for _, e := range Extensions {
		if e.String() == s {
			return e, nil
		}
	}
	return 0, fmt.Errorf("urlnorm: unknown extended normalization %q", s)
}

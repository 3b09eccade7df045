// Package urlnorm turns raw URL strings into scent's one URL type.
//
// Every URL that reaches the frontier, the store or a report passes through
// Parse or URL.Resolve, which apply the standard normalization of RFC 3986
// that never changes which resource a URL names: the scheme and host are
// lower-cased, the default port is removed, "." and ".." segments are
// resolved, an empty path becomes "/", the fragment and the user
// information (user:password@, which a crawler must not send to a host,
// nor let stand for another host) are dropped,
// percent-encodings use upper-case hex digits, percent-encoded unreserved
// characters are decoded and internationalized host names become punycode.
//
// The extended normalizations EN1–EN6 (lower-case path or query, remove a
// trailing slash or a default document name) may map two different
// resources to one URL, so they are never applied by Parse; callers apply
// them explicitly with URL.Extend where a site has been shown to tolerate
// them.
//
// The package imports nothing else of scent's.
package urlnorm

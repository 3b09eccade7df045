// Package scope says which URLs a crawl may fetch, beyond what its
// strategy chooses: the hosts and domains it keeps to or leaves alone, and
// the URL patterns it keeps to or leaves out (a calendar that never ends,
// a login page, a mirror of the site under another path).
//
// New turns the user's lists (--domains, --exclude-domains,
// --include-urls, --exclude-urls) into Rules, refusing an entry that is
// no host name or no regular expression; Rules.Check then tells of one
// normalized URL whether it is in scope, and if not, by which rule. A
// domain names a host and every host under it ("example.org" keeps
// www.example.org; "edu" keeps every host under .edu), written as a user
// would (upper case, a leading dot or "*.", an internationalized name) and
// compared as urlnorm writes hosts; an IP address names itself alone. A
// pattern is a Go regular expression (RE2) matched anywhere in the
// normalized URL (its host in punycode, its path percent-encoded) unless
// anchored.
//
// The package imports only urlnorm of scent's.
package scope

// Package sitemap parses the sitemaps sites publish for crawlers
// (sitemaps.org protocol 0.9): XML URL sets with their <lastmod>, XML
// sitemap indexes that list other sitemaps, and plain-text sitemaps of one
// URL per line, any of them gzip-compressed.
//
// Parse reads from an io.Reader within Limits (bytes after decompression,
// entries), so a huge or hostile sitemap is refused with an error that
// says why (ErrTooLarge, ErrTooMany, ErrMalformed) instead of filling
// memory. It does no I/O of its own: fetching sitemaps, following
// indexes and politeness belong to package fetch.
package sitemap

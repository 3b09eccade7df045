// Package fetch downloads single pages for the crawler and for training,
// with the policies a well-behaved crawler needs around colly.
//
// A Fetcher wraps one colly collector. Fetch takes a normalized URL and
// returns the final response, after:
//
//   - robots.txt: fetched once per origin and cached (bounded), and read
//     as RFC 9309 says (robotstxt.go: our product token's groups or "*"'s,
//     the longest matching rule, allow on a tie, wildcards, percent-encoding
//     compared decoded, unreadable lines skipped). A 4xx answer
//     allows everything, a 5xx answer disallows everything for that
//     origin for a while (a tenth of RobotsTTL), a robots.txt that cannot
//     be reached fails the page as unreachable (asked again for the
//     next page), and redirect targets are
//     checked against their own robots.txt, not only the first URL;
//   - politeness: at most HostParallelism requests at once per host and at
//     least HostDelay between the starts of two requests to one host, or
//     the host's robots.txt Crawl-delay when longer (capped by
//     MaxCrawlDelay, the cut logged through Logf), the robots.txt request
//     counted as one; optionally the same per
//     IP address (IPParallelism, IPDelay) for hosts that share a server,
//     robots.txt requests paced there too (by the delay alone: a
//     redirect's target is checked while its page holds a slot);
//   - retries with exponential backoff on 5xx, 429 and network errors
//     (not a name server's "no such host"),
//     honouring Retry-After (capped by MaxRetryAfter); a 429 or 503 with
//     Retry-After holds every request to the host until then, not only
//     the page retried;
//   - a user agent that names the crawler and, with Contact, where its
//     operator is reached;
//   - with KeepRaw, every request and response as sent and received
//     (Result.Exchanges: status line, headers and body before charset
//     conversion, one per redirect hop), for archives, compressed
//     as they are recorded, on the fetch's goroutine (Exchange.Deflated,
//     DEFLATE against the preset dictionary RawDict); a response of over
//     a megabyte is compressed as it is read and held compressed only
//     (Exchange.RawResponse);
//   - a maximum body size, allowed content types checked on the headers
//     (the body of a refused page is never downloaded) and a redirect limit
//     with loop detection;
//   - WithoutRedirects: a context under which a redirect answer is
//     returned as it is (Result.Location), for callers that fetch the
//     target themselves, such as a crawler that checks its visited set;
//   - charset conversion: a body whose Content-Type names a charset is
//     converted to UTF-8 by colly, and Result.ContentType then says
//     charset=utf-8.
//
// Every request carries the context of the Fetch call that made it, so
// that canceling a crawl aborts its requests in flight, its waits for a
// host slot and its retry back-offs.
//
// Failures are returned as *Error values whose Reason is one of the Reason
// constants, so that callers can record a failed page with its reason.
package fetch

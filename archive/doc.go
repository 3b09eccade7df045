// Package archive writes the fetches of a crawl as WARC records: the
// archive that other tools (wayback machines, warcio, pywb, the Internet
// Archive's tools) read.
//
// For every fetch with raw exchanges (fetch.Config.KeepRaw) a Writer
// writes, per hop (redirects first), a request record and a response
// record; a response whose payload (sha1 of the body) was already archived
// by the same Writer becomes a revisit record of the
// identical-payload-digest profile, with only the HTTP header (a Writer
// remembers the payloads and URLs of a million responses, then forgets
// them and starts again). A metadata record follows, concurrent to the
// last response, with scent's view of the page: the stack it was popped
// from, its depth, its relevance score per topic, its failure, and each
// outgoing link with its score per topic. WriteRevisit adds a revisit
// record for a later check of a page that found it unchanged (scent
// revisit), referring to the page's response. A fetch without exchanges
// (refused by robots.txt, or raw responses off) gets its metadata record
// only.
//
// Store wraps a crawler.Store so that a crawl writes its WARC files as it
// goes: the records of a batch of pages are written before the batch is
// committed, so a crawl killed at any moment loses no committed page from
// its archive; the pages fetched again after a resume appear twice.
package archive

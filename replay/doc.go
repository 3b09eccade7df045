// Package replay serves an offline labelled web collection as a live web,
// so that a crawl runs unchanged against it on loopback.
//
// A collection is a set of stored pages, each with a URL, a label (its
// class, such as "course", or Other) and a group (such as the site or
// university it was gathered from). The format read is the WebKB layout:
// class/group/file, where the class folder is the page's label, the group
// folder its group and the file name its URL with every '/' written as
// '^'. Open reads it from a .tgz, .tar.gz or .tar file directly or from an
// unpacked folder, and data flows like this:
//
//	file name ──urlnorm.Parse──► Page.URL      (ftp:, file: names skipped)
//	file data ──ParseStored────► Page.Header, Page.Body (kept compressed), Page.Status
//	files of one URL ──choose──► one Page and one Label (Label.Rule says why)
//	pages ──buildRoutes────────► one prepared response per served URL
//	request ──NewHandler───────► map lookup ──► stored headers and body
//
// Stored files either begin with the response headers the original crawler
// saw (ParseStored documents how they are recognised and which are kept) or
// are bare bodies served as text/html. Files whose header block has a
// Location are stored redirects and are answered with 301 or 302.
//
// When several files normalize to one URL, one label is kept by rule:
// all files agree (RuleAgree); else a single label other than Other beats
// Other (RuleNonOther); else the first label in Options.LabelPrecedence
// wins (RulePrecedence). The body served is that of the chosen label's
// file in the first group of Options.GroupPrecedence, then by file name.
// The precedence is the caller's: replay knows no collection's labels or
// groups (package webkb gives WebKB's).
//
// The handler answers both forward-proxy requests (absolute URL in the
// request line) and requests routed by their Host header, with the usual
// directory behaviour: "/dir" redirects to "/dir/", and "/dir/" and
// "/dir/index.html" (or index.htm) stand in for each other when only one is
// stored. Every response is prepared at load time, so serving a request is
// one map lookup. Serve runs the handler on a listener until its context is
// cancelled. Answer, Resolve and Follow tell without a request what the
// handler answers a URL with, and Page.Links and Page.RawLinks give a
// page's links; package linkgraph builds the analysis of a collection's
// link graph on them.
package replay

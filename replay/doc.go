// Package replay serves an offline labelled web collection as a live web,
// so that a crawl runs unchanged against it on loopback.
//
// A collection is laid out as class/group/file, where the class folder is
// the page's label (course, faculty, student, project, department, staff,
// other), the group folder its university (cornell, texas, washington,
// wisconsin, misc) and the file name its URL with every '/' written as '^'
// (the WebKB layout). Open reads it from a .tgz, .tar.gz or .tar file
// directly or from an unpacked folder, and data flows like this:
//
//	file name ──urlnorm.Parse──► Page.URL      (ftp:, file: names skipped)
//	file data ──ParseStored────► Page.Header, Page.Body, Page.Status
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
// all files agree (RuleAgree); else a single label other than "other" beats
// "other" (RuleNonOther); else the first label in LabelPrecedence wins
// (RulePrecedence). The body served is that of the chosen label's file in
// the first group of GroupPrecedence, then by file name.
//
// The handler answers both forward-proxy requests (absolute URL in the
// request line) and requests routed by their Host header, with the usual
// directory behaviour: "/dir" redirects to "/dir/", and "/dir/" and
// "/dir/index.html" (or index.htm) stand in for each other when only one is
// stored. Every response is prepared at load time, so serving a request is
// one map lookup. Serve runs the handler on a listener until its context is
// cancelled.
//
// For evaluation, Page.Links gives a page's links as an HTML parser sees
// them, BFS and Reachable give the pages a breadth-first crawl can reach
// from seeds through the handler, DepartmentSeeds gives the home pages
// of the four department sites, TopicLayout tells where a topic's pages sit
// and which pages lead to them, and MissedBy which of them one crawl
// missed and what stood before them.
package replay

// Command farm serves an endless web of many hosts, the crawl of
// results/ram/run.sh, which measures how scent's memory grows with the
// size of a crawl. It answers for any host name, as an HTTP proxy does
// (scent crawl --proxy): every page links to 50 to 200 new pages, 40 % of
// them on other hosts among h0.farm.test … hN.farm.test (--hosts, a
// million by default), so that a crawl finds new hosts at every page. A
// page under /c/ is about a course (the words of a syllabus, and links
// to other course pages more often than the others), one under /p/ is
// not; a tenth of the /p/ pages are the same parked-domain page; one
// link in 23 carries a session parameter (?sid=); a tenth of the hosts
// have a sitemap of 20 pages; every robots.txt disallows /private/. The
// pages of ex.farm.test are those of any other host: the run's seed file
// takes its examples there. With --big N, one page in N is 1 to 9 MB
// long (under a crawl's default 10 MB
// limit). The same URL always gets the same page.
//
//	farm [--listen 127.0.0.1:18600] [--hosts 1000000] [--big N]
package main

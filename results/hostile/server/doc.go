// Command server serves the pages of results/hostile/run.sh: a few
// small pages about web crawling and a few off-topic ones, from which the
// run's seed file teaches a topic, and pages a hostile or broken server
// could send, each under 10 MB, a crawl's default body limit:
//
//	/small      a small page (the baseline)
//	/giantword  one word of 9 MB
//	/manywords  9 MB of random words, no tag
//	/manylinks  9 MB of links
//	/nested     9 MB of opening <div> tags
//	/attrs      one tag with 9 MB of attributes
//	/comment    a comment of 9 MB
//	/script     a script of 9 MB
//	/longurl    a link whose URL is 1 MB long
//	/gzipbomb   200 KB of gzip that inflates to 200 MB, under a
//	            Content-Type that names gzip
//	/bigheader  a response header of 8 MB
//	/large      links to 48 pages /big/N, each 9 MB of paragraphs
//
//	server [--listen 127.0.0.1:18777]
package main

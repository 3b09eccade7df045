// Command collybfs is the plain colly breadth-first crawler that scent's
// throughput is measured against (results/bench/run.sh): colly's own
// in-memory FIFO queue, a fixed number of worker threads, every <a href>
// followed, colly's own visited set, robots.txt ignored, no storage. It
// reads the crawl seeds of a scent seed file (the lines "seed URL"),
// crawls through an HTTP proxy such as a scent replay, and prints to
// standard output one line: the number of fetches, of pages answered 200,
// and of bytes received.
//
//	collybfs --seeds FILE --proxy http://127.0.0.1:8080 [--workers 16] [--max-pages 0]
package main

// Command rawfetch is the raw-fetch limit of results/bench/run.sh: a
// minimal Go HTTP client that fetches a fixed list of URLs (one a line on
// standard input) through an HTTP proxy with a fixed number of workers,
// reads every body to the end and keeps nothing. No parsing, no queue, no
// visited set: what a crawler of the same pages could at best reach. It
// prints to standard output the number of fetches, of answers 200 and of
// bytes received.
//
//	rawfetch --proxy http://127.0.0.1:8080 [--workers 16] < urls.txt
package main

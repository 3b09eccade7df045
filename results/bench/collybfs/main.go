package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/queue"
)

func main() {
	seeds := flag.String("seeds", "", "scent seed file; its \"seed URL\" lines start the crawl")
	proxy := flag.String("proxy", "", "HTTP proxy for every request (a scent replay)")
	workers := flag.Int("workers", 16, "pages fetched at once")
	maxPages := flag.Int64("max-pages", 0, "stop queueing links after this many fetches (0: no limit)")
	flag.Parse()
	if err := run(*seeds, *proxy, *workers, *maxPages); err != nil {
		fmt.Fprintln(os.Stderr, "collybfs:", err)
		os.Exit(1)
	}
}

func run(seedFile, proxy string, workers int, maxPages int64) error {
	urls, err := readSeeds(seedFile)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		return fmt.Errorf("%s: no seed lines", seedFile)
	}
	q, err := queue.New(workers, &queue.InMemoryQueueStorage{MaxSize: 10_000_000})
	if err != nil {
		return err
	}
	c := colly.NewCollector(colly.IgnoreRobotsTxt())
	if proxy != "" {
		if err := c.SetProxy(proxy); err != nil {
			return fmt.Errorf("proxy %s: %w", proxy, err)
		}
	}
	var fetches, ok, bytes atomic.Int64
	c.OnResponse(func(r *colly.Response) {
		fetches.Add(1)
		ok.Add(1)
		bytes.Add(int64(len(r.Body)))
	})
	c.OnError(func(r *colly.Response, err error) {
		fetches.Add(1)
		bytes.Add(int64(len(r.Body)))
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if maxPages > 0 && fetches.Load() >= maxPages {
			return
		}
		link := e.Request.AbsoluteURL(e.Attr("href"))
		if strings.HasPrefix(link, "http://") || strings.HasPrefix(link, "https://") {
			q.AddURL(link) // a URL colly cannot parse is skipped, as colly does
		}
	})
	for _, u := range urls {
		if err := q.AddURL(u); err != nil {
			return fmt.Errorf("seed %s: %w", u, err)
		}
	}
	if err := q.Run(c); err != nil {
		return err
	}
	fmt.Printf("%d fetches, %d ok, %d bytes\n", fetches.Load(), ok.Load(), bytes.Load())
	return nil
}

// readSeeds returns the URLs of the "seed URL" lines of a scent seed file.
func readSeeds(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var urls []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "seed" {
			urls = append(urls, fields[1])
		}
	}
	return urls, sc.Err()
}

package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	proxy := flag.String("proxy", "", "HTTP proxy for every request (a scent replay)")
	workers := flag.Int("workers", 16, "requests in flight")
	flag.Parse()
	if err := run(*proxy, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "rawfetch:", err)
		os.Exit(1)
	}
}

func run(proxy string, workers int) error {
	tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxIdleConns: workers}
	if proxy != "" {
		p, err := url.Parse(proxy)
		if err != nil {
			return fmt.Errorf("proxy %s: %w", proxy, err)
		}
		tr.Proxy = http.ProxyURL(p)
	}
	client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	urls := make(chan string, workers)
	var fetches, ok, bytes, failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for u := range urls {
				fetches.Add(1)
				resp, err := client.Get(u)
				if err != nil {
					failed.Add(1)
					continue
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				bytes.Add(n)
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				}
			}
		})
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			urls <- line
		}
	}
	close(urls)
	wg.Wait()
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("%d fetches, %d ok, %d bytes, %d failed\n", fetches.Load(), ok.Load(), bytes.Load(), failed.Load())
	return nil
}

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/scent-crawler/scent/crawler"
)

// crawlProgress sets where a crawl reports its progress: a line that
// rewrites itself when stderr is a terminal; a plain, time-stamped line
// every logEvery otherwise (a log file, a pipe, a service manager);
// nothing when quiet or logEvery is 0 without a terminal.
func crawlProgress(cfg *crawler.Config, stderr io.Writer, quiet bool, logEvery time.Duration) {
	switch {
	case quiet:
	case isTerminal(os.Stderr):
		cfg.Progress = progressLine(stderr)
	case logEvery > 0:
		cfg.Progress = progressLine(&plainLines{w: stderr, now: time.Now})
		cfg.ProgressEvery = logEvery
	}
}

// progressLine draws a crawl's progress on w as one line that rewrites
// itself (a carriage return before, padding after), ended by a newline
// with the last update. The pages waiting to be fetched again after a
// transient failure are said only when there are any.
func progressLine(w io.Writer) func(crawler.Progress) {
	return func(p crawler.Progress) {
		var b strings.Builder
		fmt.Fprintf(&b, "\rpages %d (failed fetches %d", p.Pages, p.Failed)
		if p.Retrying > 0 {
			fmt.Fprintf(&b, ", %d waiting to retry", p.Retrying)
		}
		b.WriteString(")")
		for i, t := range p.Topics {
			fmt.Fprintf(&b, " | %s relevant %d", t, p.Relevant[i])
		}
		if p.Frontier != nil {
			b.WriteString(" | frontier")
		}
		for i, f := range p.Frontier {
			switch {
			case f.Stack.Kind == crawler.Main && f.Stack.Topic == "":
				fmt.Fprintf(&b, " queue %d", f.URLs)
			case f.Stack.Kind == crawler.Main:
				fmt.Fprintf(&b, " %s %d", f.Stack.Topic, f.URLs)
			default:
				sep := ", "
				if p.Frontier[i-1].Stack.Kind == crawler.Main {
					sep = " ("
				}
				fmt.Fprintf(&b, "%s%s %d", sep, f.Stack.Kind, f.URLs)
				if i+1 == len(p.Frontier) || p.Frontier[i+1].Stack.Kind == crawler.Main {
					b.WriteString(")")
				}
			}
		}
		fmt.Fprintf(&b, " | %.0f fetches/s   ", p.FetchesPerSec)
		if p.Final {
			b.WriteString("\n")
		}
		io.WriteString(w, b.String())
	}
}

// plainLines turns the crawler's self-rewriting progress line into log
// lines: one per update, prefixed with the UTC time, without carriage
// returns or padding.
type plainLines struct {
	w   io.Writer
	now func() time.Time
}

func (p *plainLines) Write(b []byte) (int, error) {
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\r", ""))
	if s == "" {
		return len(b), nil
	}
	if _, err := io.WriteString(p.w, p.now().UTC().Format(time.RFC3339)+" "+s+"\n"); err != nil {
		return 0, err
	}
	return len(b), nil
}

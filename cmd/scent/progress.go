package main

import (
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
		cfg.Progress = stderr
	case logEvery > 0:
		cfg.Progress = &plainLines{w: stderr, now: time.Now}
		cfg.ProgressEvery = logEvery
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

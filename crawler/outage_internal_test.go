package crawler

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// statusFetcher answers every URL with the HTTP status its path maps to
// (200 when none), as a fetch.Fetcher reports it.
type statusFetcher map[string]int

func (f statusFetcher) Fetch(_ context.Context, u urlnorm.URL, _ http.Header) (*fetch.Result, error) {
	if s, ok := f[u.Path()]; ok && s >= 400 {
		return nil, &fetch.Error{URL: u, Reason: fetch.ReasonStatus, Status: s, Err: errors.New(http.StatusText(s))}
	}
	return &fetch.Result{URL: u, FinalURL: u, Status: http.StatusOK}, nil
}

// TestOutage_Fetch_answerEndsFailuresInARow: a host's wait after a
// transient failure doubles only with failures in a row. A final answer
// of the host in between (a 404) ends the row, as a page fetched does:
// the next transient failure waits hostBackoffFirst again, so that a
// host with a few failing pages among many missing ones is not held for
// minutes at a time.
func TestOutage_Fetch_answerEndsFailuresInARow(t *testing.T) {
	ctx := context.Background()
	o := newOutage(ctx, statusFetcher{"/bad": 503, "/gone": 404}, Config{RetryLater: 4, MaxOutage: time.Hour})
	defer o.close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.now = func() time.Time { return now }
	url := func(path string) urlnorm.URL {
		u, err := urlnorm.Parse("http://h.test" + path)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	wait := func() time.Duration {
		o.mu.Lock()
		defer o.mu.Unlock()
		if b := o.hosts["h.test"]; b != nil {
			return b.next.Sub(now)
		}
		return 0
	}
	if _, err := o.Fetch(ctx, url("/bad"), nil); !errors.Is(err, errRetryLater) {
		t.Fatalf("first 503: %v, want it fetched again later", err)
	}
	if w := wait(); w != hostBackoffFirst {
		t.Fatalf("host waits %v after a first failure, want %v", w, hostBackoffFirst)
	}
	now = now.Add(hostBackoffFirst)
	if _, err := o.Fetch(ctx, url("/gone"), nil); fetch.ReasonOf(err) != fetch.ReasonStatus {
		t.Fatalf("404 after the wait: %v, want it final", err)
	}
	if w := wait(); w != 0 {
		t.Errorf("host still waits %v after it answered 404", w)
	}
	if _, err := o.Fetch(ctx, url("/bad"), nil); !errors.Is(err, errRetryLater) {
		t.Fatalf("second 503: %v, want it fetched again later", err)
	}
	if w := wait(); w != hostBackoffFirst {
		t.Errorf("host waits %v after a failure that followed an answer, want %v", w, hostBackoffFirst)
	}
}

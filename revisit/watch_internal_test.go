package revisit

import (
	"context"
	"testing"
	"time"

	"github.com/scent-crawler/scent/refresh"
	"github.com/scent-crawler/scent/urlnorm"
)

// oneCheckStore is a WatchStore of one page, fetched at fetched, and one
// check of it at checked that found it changed.
type oneCheckStore struct {
	fetched, checked time.Time
}

func (s oneCheckStore) RevisitPages(_ context.Context, _, after int64, _ int) ([]Page, error) {
	if after > 0 {
		return nil, nil
	}
	return []Page{{ID: 1, URL: urlnorm.MustParse("http://a.test/p"), Version: 2, CheckedAt: s.checked, FetchedAt: s.fetched}}, nil
}
func (oneCheckStore) VersionText(context.Context, int64, int) (string, error) { return "", nil }
func (oneCheckStore) RecordCheck(context.Context, *Check) error               { return nil }
func (s oneCheckStore) EachCheck(_ context.Context, _ int64, fn func(*Check) error) error {
	return fn(&Check{PageID: 1, CheckedAt: s.checked, Status: 200, Changed: true, Version: 2})
}
func (oneCheckStore) Schedule(context.Context, int64) (map[int64]Due, error)     { return nil, nil }
func (oneCheckStore) RecordScheduledCheck(context.Context, *Check, Due) error    { return nil }
func (oneCheckStore) ChecksSince(context.Context, int64, time.Time) (int, error) { return 0, nil }

// TestWatcher_firstCheckCounts: a page's first check is an observation
// of the interval since its first fetch, so a change found there counts.
func TestWatcher_firstCheckCounts(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	w := &watcher{st: oneCheckStore{fetched: t0, checked: t0.Add(7 * 24 * time.Hour)}}
	if err := w.load(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := w.pages[1]
	if p == nil || p.obs.Checks != 1 || p.obs.Changes() != 1 {
		t.Fatalf("after loading one changed first check: %+v", p)
	}
	if wk := p.obs.Weeks; wk < 0.99 || wk > 1.01 {
		t.Errorf("the check covers %.2f weeks, want the week since the fetch", wk)
	}
}

// TestWatcher_forgetsWhenSharing: rates shared by a policy fade older
// checks (refresh.DefaultForget); the paper's groups weigh all alike.
func TestWatcher_forgetsWhenSharing(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	st := oneCheckStore{fetched: t0, checked: t0.Add(7 * 24 * time.Hour)}
	for _, tc := range []struct {
		cfg  WatchConfig
		want float64
	}{
		{WatchConfig{Allocate: true, Policy: refresh.SquareRoot}, refresh.DefaultForget},
		{WatchConfig{Allocate: true, Policy: refresh.Proportional}, refresh.DefaultForget},
		{WatchConfig{Allocate: true, Policy: refresh.Paper}, 0},
		{WatchConfig{}, 0}, // the groups' own intervals
	} {
		w := &watcher{st: st, wcfg: tc.cfg}
		if err := w.load(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := w.pages[1].obs.Forget; got != tc.want {
			t.Errorf("allocate %v, policy %v: Forget %v, want %v", tc.cfg.Allocate, tc.cfg.Policy, got, tc.want)
		}
	}
}

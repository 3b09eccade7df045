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

// racedCheckStore is a WatchStore of one page whose one check another
// process records between the first and the second of the watcher's
// reads of the change log and the schedule: the first read does not see
// it, the second does.
type racedCheckStore struct {
	oneCheckStore
	committed *bool
}

func (s racedCheckStore) EachCheck(ctx context.Context, crawl int64, fn func(*Check) error) error {
	seen := *s.committed
	*s.committed = true
	if !seen {
		return nil
	}
	return s.oneCheckStore.EachCheck(ctx, crawl, fn)
}

func (s racedCheckStore) Schedule(context.Context, int64) (map[int64]Due, error) {
	seen := *s.committed
	*s.committed = true
	if !seen {
		return nil, nil
	}
	return map[int64]Due{1: {Next: s.checked.Add(7 * 24 * time.Hour), Rate: 1, Group: "1w", Hour: -1}}, nil
}

// TestWatcher_checkDuringLoad: a check recorded while the watcher loads
// is never in the schedule it reads without being in the page's history
// (its observation would be lost for good); at worst the page keeps the
// due time before the check.
func TestWatcher_checkDuringLoad(t *testing.T) {
	t0 := time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)
	committed := false
	st := racedCheckStore{oneCheckStore{fetched: t0, checked: t0.Add(7 * 24 * time.Hour)}, &committed}
	w := &watcher{st: st}
	if err := w.load(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := w.pages[1]
	if p.obs.Checks != 1 || p.obs.Changes() != 1 {
		t.Errorf("history of the check recorded during the load: %d checks, %v changes; want 1 and 1 (due %v)", p.obs.Checks, p.obs.Changes(), p.due.Next)
	}
	if !p.due.Next.After(t0) {
		t.Errorf("due %v, want after the first fetch %v", p.due.Next, t0)
	}
}

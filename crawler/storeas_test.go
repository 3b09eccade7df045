package crawler_test

import (
	"context"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/crawler/crawlertest"
)

// wrapper wraps a store as archive.Store and metrics.Store do.
type wrapper struct {
	crawler.Store
}

func (w *wrapper) Unwrap() crawler.Store { return w.Store }

// groupingWrapper is a wrapper that is a Grouper itself.
type groupingWrapper struct{ wrapper }

func (*groupingWrapper) GroupCommits(context.Context, time.Duration) error { return nil }

func TestStoreAs(t *testing.T) {
	mem := crawlertest.NewMemStore()
	twice := &wrapper{Store: &wrapper{Store: mem}}
	if pr, ok := crawler.StoreAs[crawler.PageReader](twice); !ok || pr != crawler.PageReader(mem) {
		t.Errorf("StoreAs[PageReader] through two wrappers = %v, %v; want the wrapped MemStore", pr, ok)
	}
	if _, ok := crawler.StoreAs[crawler.Peeker](twice); ok {
		t.Error("StoreAs[Peeker] found a Peeker where no store is one")
	}
	own := &groupingWrapper{wrapper{Store: mem}}
	if g, ok := crawler.StoreAs[crawler.Grouper](own); !ok || g != crawler.Grouper(own) {
		t.Errorf("StoreAs[Grouper] = %v, %v; want the wrapper's own", g, ok)
	}
	if _, ok := crawler.StoreAs[crawler.PageReader](crawler.Store(nil)); ok {
		t.Error("StoreAs on a nil store found something")
	}
}

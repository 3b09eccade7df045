package crawler_test

import (
	"testing"

	"github.com/scent-crawler/scent/crawler/crawlertest"
)

func TestSuite_memStore(t *testing.T) {
	crawlertest.Run(t, func(*testing.T) crawlertest.Store { return crawlertest.NewMemStore() })
}

func TestSuite_sqlite(t *testing.T) {
	crawlertest.Run(t, func(t *testing.T) crawlertest.Store { return openStore(t) })
}

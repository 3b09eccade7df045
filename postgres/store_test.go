package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/scent-crawler/scent/crawler/crawlertest"
	"github.com/scent-crawler/scent/internal/pgtest"
	"github.com/scent-crawler/scent/internal/storetest"
	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/minhash/minhashtest"
	"github.com/scent-crawler/scent/revisit/revisittest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openURL opens a store on url, closed when t ends.
func openURL(t *testing.T, url string, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStore_behaviour runs the store suite that the SQLite store passes
// too.
func TestStore_behaviour(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (storetest.Store, func(*testing.T) storetest.Store) {
		url := pgtest.URL(t)
		open := func(t *testing.T) storetest.Store { return openURL(t, url, Options{LeaseExpiry: time.Second}) }
		return open(t), open
	})
}

func TestMinhashIndex_behaviour(t *testing.T) {
	minhashtest.Run(t, func(t *testing.T) minhash.Index {
		s := openURL(t, pgtest.URL(t), Options{})
		x, err := s.MinhashIndex(context.Background(), minhash.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return x
	})
}

// TestCrawler_behaviour runs the crawler's behaviour suite, which the
// in-memory and SQLite stores pass too, on PostgreSQL.
func TestCrawler_behaviour(t *testing.T) {
	crawlertest.Run(t, func(t *testing.T) crawlertest.Store {
		return openURL(t, pgtest.URL(t), Options{LeaseExpiry: time.Second})
	})
}

// TestStore_revisitBehaviour runs the revisit suite, which the in-memory
// and SQLite stores pass too, on PostgreSQL.
func TestStore_revisitBehaviour(t *testing.T) {
	revisittest.Run(t, func(t *testing.T) revisittest.Store {
		return openURL(t, pgtest.URL(t), Options{LeaseExpiry: time.Second})
	})
}

// TestStore_watchBehaviour runs the scheduler's suite, which the
// in-memory and SQLite stores pass too, on PostgreSQL.
func TestStore_watchBehaviour(t *testing.T) {
	revisittest.RunWatch(t, func(t *testing.T) revisittest.WatchStore {
		return openURL(t, pgtest.URL(t), Options{})
	})
}

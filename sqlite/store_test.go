package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/scent-crawler/scent/internal/storetest"
)

// TestStore_behaviour runs the store suite that the PostgreSQL store
// passes too.
func TestStore_behaviour(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (storetest.Store, func(*testing.T) storetest.Store) {
		path := filepath.Join(t.TempDir(), "s.db")
		open := func(t *testing.T) storetest.Store {
			s, err := Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		return open(t), open
	})
}

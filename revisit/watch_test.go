package revisit_test

import (
	"testing"

	"github.com/scent-crawler/scent/revisit/revisittest"
)

// TestMemStore_watchBehaviour runs the scheduler's suite, which the SQLite
// and PostgreSQL stores pass too, on the in-memory reference store.
func TestMemStore_watchBehaviour(t *testing.T) {
	revisittest.RunWatch(t, func(*testing.T) revisittest.WatchStore { return revisittest.NewMemStore() })
}

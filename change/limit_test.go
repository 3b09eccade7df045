package change

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// TestLCS_costLimit: on very different inputs the cut-off search still
// returns a common subsequence, not much shorter than the exact one, and
// says it is approximate; on inputs within the limit it is exact.
func TestLCS_costLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	saved := costLimit
	for _, n := range []int{2000, 6000} {
		a, b := textLike(r, n), textLike(r, n)
		var in interner
		ia, ib := in.ids(a), in.ids(b)
		costLimit = func(int) int { return ExactCost } // as for inputs of 262,144 words
		got, approx, err := lcsIDs(context.Background(), ia, ib, in.size())
		if err != nil || !approx {
			t.Fatalf("n=%d: approx %v err %v, want an approximate result", n, approx, err)
		}
		costLimit = func(int) int { return 0 }
		exact, approx2, _ := lcsIDs(context.Background(), ia, ib, in.size())
		costLimit = saved
		if approx2 {
			t.Fatal("no limit, yet approximate")
		}
		var ms []Match
		for i, j := range got {
			if j >= 0 {
				ms = append(ms, Match{A: i, B: int(j)})
			}
		}
		checkCommon(t, a, b, ms)
		g, e := countMatched(got), countMatched(exact)
		t.Logf("n=%d: %d matched with the limit, %d exact", n, g, e)
		if g > e || float64(g) < 0.8*float64(e) {
			t.Errorf("n=%d: %d matched with the limit, %d exact: want at least 80%%", n, g, e)
		}
	}
	// Inputs up to 8,192 words in all are compared exactly.
	a0, b0 := textLike(r, 4096), textLike(r, 4096)
	if cmp := CompareWords(a0, b0, DefaultCosts()); cmp.Approximate {
		t.Error("two unrelated 4,096-word documents were approximated")
	}
	// A small change of a long document stays exact.
	a, b := benchPair(50_000, 0.01, 5)
	if cmp := CompareWords(a, b, DefaultCosts()); cmp.Approximate {
		t.Error("a 1% change of 50,000 words was approximated")
	}
}

// TestCompareContext_cancel: a comparison stops soon after its context
// ends, even without the cost limit (which alone keeps it short).
func TestCompareContext_cancel(t *testing.T) {
	saved := costLimit
	costLimit = func(int) int { return 0 }
	defer func() { costLimit = saved }()
	a, b := unrelatedPair(50_000) // about 18 s without the limit
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := CompareContext(ctx, a, b, DefaultCosts())
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled comparison returned %v", err)
		}
	case <-time.After(time.Second):
		t.Error("the comparison went on more than 1 s after its context ended")
	}
}

package sqlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/minhash/minhashtest"
)

func newIndex(t *testing.T, s *Store) *MinhashIndex {
	t.Helper()
	x, err := s.MinhashIndex(context.Background(), minhash.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestMinhashIndex_behaviour(t *testing.T) {
	minhashtest.Run(t, func(t *testing.T) minhash.Index {
		s, _ := open(t)
		return newIndex(t, s)
	})
}

func TestStore_MinhashIndex_params(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	newIndex(t, s)
	other := minhash.Params{ShingleWords: 5, Seed: 1}
	if _, err := s.MinhashIndex(ctx, other); !errors.Is(err, minhash.ErrParams) {
		t.Fatalf("MinhashIndex(other params) = %v, want ErrParams", err)
	}
	// The parameters survive a reopen.
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.MinhashIndex(ctx, other); !errors.Is(err, minhash.ErrParams) {
		t.Fatalf("after reopen: MinhashIndex(other params) = %v, want ErrParams", err)
	}
	x, err := s2.MinhashIndex(ctx, minhash.Params{ShingleWords: 8, Seed: minhash.DefaultSeed})
	if err != nil {
		t.Fatalf("MinhashIndex(equal params) = %v", err)
	}
	if got := x.Params(); got != minhash.DefaultParams() {
		t.Fatalf("Params() = %+v", got)
	}
}

func TestMinhashIndex_survivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sig := minhash.Signature{Kind: minhash.KindShingled, Features: [6]uint64{1 << 63, 2, 3, 4, 5, ^uint64(0)}}
	if _, _, err := newIndex(t, s).CheckAndInsert(ctx, 7, sig); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	near := sig
	near.Features[1], near.Features[2], near.Features[3] = 0, 0, 0
	orig, dup, err := newIndex(t, s).CheckAndInsert(ctx, 8, near)
	if err != nil || orig != 7 || !dup {
		t.Fatalf("CheckAndInsert after reopen = (%d, %t, %v), want (7, true, nil)", orig, dup, err)
	}
}

// TestMinhashIndex_CheckAndInsert_race checks atomicity between separate
// connections to one file: goroutines on four Stores insert signatures that
// all share the key of positions (2, 3), and exactly one becomes the
// original.
func TestMinhashIndex_CheckAndInsert_race(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	var idx []*MinhashIndex
	for range 4 {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		idx = append(idx, newIndex(t, s))
	}
	const goroutines, each = 16, 10
	type res struct {
		orig int64
		dup  bool
	}
	results := make([]res, goroutines*each)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 9))
			<-start
			for k := range each {
				i := g*each + k
				var sig minhash.Signature
				sig.Kind = minhash.KindShingled
				for j := range sig.Features {
					sig.Features[j] = r.Uint64()
				}
				sig.Features[2], sig.Features[3] = 77, 78
				orig, dup, err := idx[g%len(idx)].CheckAndInsert(ctx, int64(i+1), sig)
				if err != nil {
					errs[g] = err
					return
				}
				results[i] = res{orig, dup}
			}
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var originals []int64
	for i, r := range results {
		if !r.dup {
			originals = append(originals, int64(i+1))
		}
	}
	if len(originals) != 1 {
		t.Fatalf("%d originals, want 1: %v", len(originals), originals)
	}
	for i, r := range results {
		if r.orig != originals[0] {
			t.Errorf("page %d: original %d, want %d", i+1, r.orig, originals[0])
		}
	}
}

// BenchmarkMinhashIndex_CheckAndInsert measures one check-and-insert of a
// new page into an index that already holds 1,000,000 pages. Building the
// index takes several minutes, so the benchmark runs only when
// SCENT_BENCH_1M is set to a directory for the database (kept between runs).
func BenchmarkMinhashIndex_CheckAndInsert(b *testing.B) {
	dir := benchDir(b)
	ctx := context.Background()
	const n = 1_000_000
	s, err := Open(ctx, filepath.Join(dir, "minhash-1m.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	x, err := s.MinhashIndex(ctx, minhash.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	randomSig := func() minhash.Signature {
		sig := minhash.Signature{Kind: minhash.KindShingled}
		for j := range sig.Features {
			sig.Features[j] = r.Uint64()
		}
		return sig
	}
	var have int64
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM dedup_pages`).Scan(&have); err != nil {
		b.Fatal(err)
	}
	for have < n {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 10000 && have < n; i++ {
			sig := randomSig()
			have++
			if _, _, err := checkAndInsert(ctx, x.stmts.in(ctx, tx), 1<<40+have, &sig); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	var next int64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(page_id) FROM dedup_pages`).Scan(&next); err != nil {
		b.Fatal(err)
	}
	// New pages, unrelated to those indexed: another random stream.
	r = rand.New(rand.NewPCG(uint64(next), 2))
	sigs := make([]minhash.Signature, b.N)
	for i := range sigs {
		sigs[i] = randomSig()
	}
	took := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next++
		t0 := time.Now()
		if _, dup, err := x.CheckAndInsert(ctx, next, sigs[i]); err != nil || dup {
			b.Fatal(dup, err)
		}
		took[i] = time.Since(t0)
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

func benchDir(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("SCENT_BENCH_1M")
	if dir == "" {
		b.Skip("set SCENT_BENCH_1M to a directory to build and keep a 1,000,000-page index there")
	}
	return dir
}

package minhash_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/minhash/minhashtest"
)

func TestMemIndex(t *testing.T) {
	t.Run("zero", func(t *testing.T) {
		minhashtest.Run(t, func(*testing.T) minhash.Index { return new(minhash.MemIndex) })
	})
	t.Run("sized", func(t *testing.T) {
		minhashtest.Run(t, func(*testing.T) minhash.Index { return minhash.NewMemIndex(10000) })
	})
}

func randomSig(r *rand.Rand) minhash.Signature {
	sig := minhash.Signature{Kind: minhash.KindShingled}
	for i := range sig.Features {
		sig.Features[i] = r.Uint64()
	}
	return sig
}

// TestMemIndex_Remove removes most of many pages, which makes the index
// compact itself, and checks that the rest are intact and in order.
func TestMemIndex_Remove(t *testing.T) {
	ctx := context.Background()
	const n = 60000
	idx := new(minhash.MemIndex)
	r := rand.New(rand.NewPCG(1, 1))
	sigs := make([]minhash.Signature, n)
	for i := range sigs {
		sigs[i] = randomSig(r)
		if _, dup, err := idx.CheckAndInsert(ctx, int64(i), sigs[i]); err != nil || dup {
			t.Fatalf("insert %d: dup %t, %v", i, dup, err)
		}
	}
	for i := range n {
		if i%10 != 0 {
			if err := idx.Remove(ctx, int64(i)); err != nil {
				t.Fatalf("Remove(%d): %v", i, err)
			}
		}
	}
	if got := idx.Len(); got != n/10 {
		t.Fatalf("Len() = %d, want %d", got, n/10)
	}
	for i, sig := range sigs {
		orig, found, err := idx.Lookup(ctx, sig)
		if err != nil {
			t.Fatal(err)
		}
		if want := i%10 == 0; found != want || (found && orig != int64(i)) {
			t.Fatalf("Lookup(page %d) = (%d, %t), want found %t", i, orig, found, want)
		}
	}
	// Insertion order survives compaction: a page matching 10 and 20 is a
	// duplicate of 10.
	probe := randomSig(r)
	probe.Features[0], probe.Features[1] = sigs[20].Features[0], sigs[20].Features[1]
	probe.Features[2], probe.Features[3] = sigs[10].Features[2], sigs[10].Features[3]
	if orig, dup, err := idx.CheckAndInsert(ctx, n, probe); err != nil || !dup || orig != 10 {
		t.Fatalf("CheckAndInsert = (%d, %t, %v), want a duplicate of 10", orig, dup, err)
	}
	// Removed ids are free again.
	if orig, dup, err := idx.CheckAndInsert(ctx, 1, randomSig(r)); err != nil || dup || orig != 1 {
		t.Fatalf("reinsert id 1 = (%d, %t, %v)", orig, dup, err)
	}
}

// TestMemIndex_memory fills an index with a million pages and logs the heap
// it holds; it must stay within 200 MB, with and without a size hint.
func TestMemIndex_memory(t *testing.T) {
	if testing.Short() {
		t.Skip("fills an index with 1,000,000 pages")
	}
	const n = 1_000_000
	for _, hint := range []int{n, 0} {
		before := heapAlloc()
		idx := minhash.NewMemIndex(hint)
		fill(t, idx, n, 2)
		after := heapAlloc()
		mb := float64(after-before) / 1e6
		t.Logf("hint %d: %d pages hold %.1f MB of heap (%.0f bytes a page)", hint, idx.Len(), mb, float64(after-before)/n)
		if mb > 200 {
			t.Errorf("hint %d: %.1f MB for %d pages, want at most 200", hint, mb, n)
		}
		runtime.KeepAlive(idx)
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// fill inserts n pages of random features with ids 1..n.
func fill(tb testing.TB, idx minhash.Index, n int, seed uint64) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		if _, dup, err := idx.CheckAndInsert(context.Background(), int64(i+1), randomSig(r)); err != nil || dup {
			tb.Fatalf("fill page %d: dup %t, %v", i+1, dup, err)
		}
	}
}

// BenchmarkMemIndex_CheckAndInsert times one check-and-insert into an index
// that already holds a million pages; a tenth of the pages checked are
// near-duplicates of indexed ones. It reports the median and 99th
// percentile latency and the heap held by the index.
func BenchmarkMemIndex_CheckAndInsert(b *testing.B) {
	const n = 1_000_000
	before := heapAlloc()
	idx := minhash.NewMemIndex(n)
	fill(b, idx, n, 3)
	heapMB := float64(heapAlloc()-before) / 1e6
	r := rand.New(rand.NewPCG(4, 4))
	// Signatures sharing features 1 and 3 with one of the first pages.
	base := rand.New(rand.NewPCG(3, 3))
	var dups []minhash.Signature
	for range 1000 {
		sig := randomSig(base)
		d := randomSig(r)
		d.Features[1], d.Features[3] = sig.Features[1], sig.Features[3]
		dups = append(dups, d)
	}
	lat := make([]time.Duration, 0, b.N)
	ctx := context.Background()
	id := int64(n + 1)
	for i := 0; b.Loop(); i++ {
		sig := randomSig(r)
		if i%10 == 0 {
			sig = dups[i/10%len(dups)]
		}
		start := time.Now()
		_, _, err := idx.CheckAndInsert(ctx, id, sig)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		id++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(heapMB, "heap-MB")
}

func BenchmarkMemIndex_Lookup(b *testing.B) {
	const n = 100_000
	idx := minhash.NewMemIndex(n)
	fill(b, idx, n, 5)
	r := rand.New(rand.NewPCG(6, 6))
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := idx.Lookup(ctx, randomSig(r)); err != nil {
			b.Fatal(err)
		}
	}
}

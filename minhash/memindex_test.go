package minhash_test

import (
	"context"
	"errors"
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

// TestMemIndex_grow inserts pages into an index without a size hint, so
// that it grows many times, and after every insert checks pages inserted
// before, whether they were already moved into the grown tables or not:
// each is found, its id is taken, and a page sharing one key with it and
// one with a later page is its duplicate.
func TestMemIndex_grow(t *testing.T) {
	ctx := context.Background()
	const n = 20000
	idx := new(minhash.MemIndex)
	r := rand.New(rand.NewPCG(7, 7))
	sigs := make([]minhash.Signature, 0, n)
	for i := range n {
		sig := randomSig(r)
		if orig, dup, err := idx.CheckAndInsert(ctx, int64(i), sig); err != nil || dup || orig != int64(i) {
			t.Fatalf("insert %d = (%d, %t, %v)", i, orig, dup, err)
		}
		sigs = append(sigs, sig)
		old := r.IntN(i + 1)
		if orig, found, err := idx.Lookup(ctx, sigs[old]); err != nil || !found || orig != int64(old) {
			t.Fatalf("after insert %d: Lookup(page %d) = (%d, %t, %v)", i, old, orig, found, err)
		}
		if _, _, err := idx.CheckAndInsert(ctx, int64(old), randomSig(r)); !errors.Is(err, minhash.ErrIDInUse) {
			t.Fatalf("after insert %d: reinsert id %d: %v, want ErrIDInUse", i, old, err)
		}
		probe := randomSig(r)
		probe.Features[4], probe.Features[5] = sig.Features[4], sig.Features[5]
		probe.Features[0], probe.Features[2] = sigs[old].Features[0], sigs[old].Features[2]
		if orig, found, err := idx.Lookup(ctx, probe); err != nil || !found || orig != int64(old) {
			t.Fatalf("after insert %d: probe of pages %d and %d = (%d, %t, %v), want %d", i, old, i, orig, found, err, old)
		}
	}
	if got := idx.Len(); got != n {
		t.Fatalf("Len() = %d, want %d", got, n)
	}
	for i, sig := range sigs {
		if orig, found, err := idx.Lookup(ctx, sig); err != nil || !found || orig != int64(i) {
			t.Fatalf("Lookup(page %d) = (%d, %t, %v)", i, orig, found, err)
		}
	}
}

// TestMemIndex_memory fills an index with a million pages and logs the heap
// it holds: within 200 MB in tables sized for them (a size hint a quarter
// larger, so that the index never prepares to grow), and without a hint
// within 300 MB, which leaves room for the tables of the next growth that
// an index holds in the last tenth before it grows (see MemIndex).
func TestMemIndex_memory(t *testing.T) {
	if testing.Short() {
		t.Skip("fills an index with 1,000,000 pages")
	}
	const n = 1_000_000
	for _, c := range []struct{ hint, maxMB int }{{n + n/4, 200}, {0, 300}} {
		before := heapAlloc()
		idx := minhash.NewMemIndex(c.hint)
		fill(t, idx, n, 2)
		after := heapAlloc()
		mb := float64(after-before) / 1e6
		t.Logf("hint %d: %d pages hold %.1f MB of heap (%.0f bytes a page)", c.hint, idx.Len(), mb, float64(after-before)/n)
		if mb > float64(c.maxMB) {
			t.Errorf("hint %d: %.1f MB for %d pages, want at most %d", c.hint, mb, n, c.maxMB)
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
// that already holds a million pages and whose tables are full, so that
// the first insert makes it grow; a tenth of the pages checked are
// near-duplicates of indexed ones. It reports the median, 99th percentile
// and largest latency of the timed inserts, the 99th percentile and
// largest of the last quarter million inserts of the fill (when the index
// prepares the tables it grows into), and the heap held by the index
// before the timed inserts.
func BenchmarkMemIndex_CheckAndInsert(b *testing.B) {
	const n = 1_000_000
	ctx := context.Background()
	before := heapAlloc()
	idx := minhash.NewMemIndex(n)
	fr := rand.New(rand.NewPCG(3, 3))
	fillLat := make([]time.Duration, 0, n/4)
	for i := range n {
		sig := randomSig(fr)
		start := time.Now()
		_, dup, err := idx.CheckAndInsert(ctx, int64(i+1), sig)
		if i >= n-n/4 {
			fillLat = append(fillLat, time.Since(start))
		}
		if err != nil || dup {
			b.Fatalf("fill page %d: dup %t, %v", i+1, dup, err)
		}
	}
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
	µs := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	slices.Sort(lat)
	slices.Sort(fillLat)
	b.ReportMetric(µs(lat[len(lat)/2]), "p50-µs")
	b.ReportMetric(µs(lat[len(lat)*99/100]), "p99-µs")
	b.ReportMetric(µs(lat[len(lat)-1]), "max-µs")
	b.ReportMetric(µs(fillLat[len(fillLat)*99/100]), "fill-p99-µs")
	b.ReportMetric(µs(fillLat[len(fillLat)-1]), "fill-max-µs")
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

package change

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// textLike returns n words with a Zipf-like frequency over a large
// vocabulary, so that common words repeat as in real text.
func textLike(r *rand.Rand, n int) []string {
	z := rand.NewZipf(r, 1.1, 2, 20000)
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("t%d", z.Uint64())
	}
	return s
}

// clusteredChange changes frac of a's words in the given number of
// clusters, cycling through replace, add, drop, copy, shrink and move.
func clusteredChange(r *rand.Rand, a []string, frac float64, clusters int) []string {
	size := max(1, int(frac*float64(len(a)))/clusters)
	b := append([]string(nil), a...)
	fresh := 0
	for c := range clusters {
		pos := r.IntN(max(1, len(b)-size))
		end := min(pos+size, len(b))
		switch c % 6 {
		case 0: // replace with other text
			copy(b[pos:end], textLike(r, end-pos))
		case 1: // add new words
			add := make([]string, size)
			for i := range add {
				add[i] = fmt.Sprintf("new%d", fresh)
				fresh++
			}
			b = append(b[:pos], append(add, b[pos:]...)...)
		case 2, 4: // delete a passage
			b = append(b[:pos], b[end:]...)
		case 3: // copy words already present
			cp := make([]string, size)
			for i := range cp {
				cp[i] = a[r.IntN(len(a))]
			}
			b = append(b[:pos], append(cp, b[pos:]...)...)
		case 5: // move a passage to the end
			block := append([]string(nil), b[pos:end]...)
			b = append(append(b[:pos], b[end:]...), block...)
		}
	}
	return b
}

func benchPair(n int, frac float64, clusters int) ([]string, []string) {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	a := textLike(r, n)
	return a, clusteredChange(r, a, frac, clusters)
}

func BenchmarkIED(b *testing.B) {
	cases := []struct {
		n        int
		frac     float64
		clusters int
	}{
		{8192, 0.25, 8},
		{100000, 0.01, 10},
	}
	for _, tc := range cases {
		a, bb := benchPair(tc.n, tc.frac, tc.clusters)
		b.Run(fmt.Sprintf("n=%d/changed=%g", tc.n, tc.frac), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				IED(a, bb, DefaultCosts())
			}
		})
	}
	// Worst case for the LCS search: one quarter of the document moved
	// as a block past another quarter, every word still present.
	r := rand.New(rand.NewPCG(7, 7))
	a := textLike(r, 8192)
	moved := append(append(append([]string(nil), a[:2048]...), a[4096:6144]...), a[2048:4096]...)
	moved = append(moved, a[6144:]...)
	b.Run("n=8192/moved=0.25", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			IED(a, moved, DefaultCosts())
		}
	})
}

func BenchmarkLCS(b *testing.B) {
	a, bb := benchPair(8192, 0.25, 8)
	b.ReportAllocs()
	for b.Loop() {
		LCS(a, bb)
	}
}

func BenchmarkCompare(b *testing.B) {
	a, bb := benchPair(8192, 0.25, 8)
	b.ReportAllocs()
	for b.Loop() {
		CompareWords(a, bb, DefaultCosts())
	}
}

func BenchmarkBaselines(b *testing.B) {
	a, bb := benchPair(8192, 0.25, 8)
	b.Run("COS", func(b *testing.B) {
		for b.Loop() {
			Cosine(a, bb)
		}
	})
	b.Run("WD", func(b *testing.B) {
		for b.Loop() {
			WordDistance(a, bb)
		}
	})
	b.Run("ED", func(b *testing.B) {
		for b.Loop() {
			EditDistance(a, bb)
		}
	})
	b.Run("10SH", func(b *testing.B) {
		for b.Loop() {
			Shingling(a, bb, ShingleSize)
		}
	})
}

// allocated returns the bytes allocated by f.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestIED_memoryLinear checks that memory grows linearly with the input: a
// document four times longer with the same share of changes must not need
// much more than four times the memory (an m·n table would need sixteen).
func TestIED_memoryLinear(t *testing.T) {
	small1, small2 := benchPair(4096, 0.25, 8)
	big1, big2 := benchPair(16384, 0.25, 8)
	small := allocated(func() { IED(small1, small2, DefaultCosts()) })
	big := allocated(func() { IED(big1, big2, DefaultCosts()) })
	if ratio := float64(big) / float64(small); ratio > 6 {
		t.Fatalf("allocated %d bytes for 4096 words, %d for 16384: ratio %.1f, want about 4", small, big, ratio)
	}
}

// unrelatedPair returns two documents of n words each drawn independently
// from the same text-like vocabulary: nearly everything differs.
func unrelatedPair(n int) ([]byte, []byte) {
	ra := rand.New(rand.NewPCG(uint64(n), 1))
	rb := rand.New(rand.NewPCG(uint64(n), 2))
	join := func(ws []string) []byte {
		var b []byte
		for _, w := range ws {
			b = append(b, w...)
			b = append(b, ' ')
		}
		return b
	}
	return join(textLike(ra, n)), join(textLike(rb, n))
}

// BenchmarkCompare_unrelated200k compares two unrelated documents of
// 200,000 words: the worst case that the LCS cost limit bounds.
func BenchmarkCompare_unrelated200k(b *testing.B) {
	a, c := unrelatedPair(200_000)
	b.ResetTimer()
	for range b.N {
		cmp := Compare(a, c, DefaultCosts())
		if !cmp.Approximate {
			b.Fatal("unrelated documents compared exactly: the limit did not act")
		}
	}
}

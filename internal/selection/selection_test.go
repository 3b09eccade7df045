package selection

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKthLargest: the k-th largest value, as a sort finds it, on values
// with and without repeats.
func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 300; n += 7 {
		for _, distinct := range []int{3, 1 << 30} {
			vs := make([]float64, n)
			for i := range vs {
				vs[i] = float64(rng.IntN(distinct)) / 7
			}
			sorted := slices.Clone(vs)
			slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
			for k := 1; k <= n; k += 1 + n/10 {
				if got := KthLargest(slices.Clone(vs), k); got != sorted[k-1] {
					t.Fatalf("n %d, k %d: %v, want %v", n, k, got, sorted[k-1])
				}
			}
		}
	}
}

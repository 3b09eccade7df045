package selection

// KthLargest returns the k-th largest of vals (1 ≤ k ≤ len(vals)),
// reordering vals (Hoare's quickselect with the middle element as pivot).
func KthLargest(vals []float64, k int) float64 {
	lo, hi, want := 0, len(vals)-1, k-1
	for lo < hi {
		pivot := vals[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for vals[i] > pivot {
				i++
			}
			for vals[j] < pivot {
				j--
			}
			if i <= j {
				vals[i], vals[j] = vals[j], vals[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return vals[want]
		}
	}
	return vals[want]
}

package change

// interner gives each distinct word a small dense id, so that the metrics
// compare and count integers instead of strings.
type interner struct {
	m map[string]int32
}

// ids returns the id of every word of s, adding new words as it goes.
func (in *interner) ids(s []string) []int32 {
	if in.m == nil {
		// Vocabularies grow much slower than texts.
		in.m = make(map[string]int32, len(s)/8+64)
	}
	out := make([]int32, len(s))
	for i, w := range s {
		id, ok := in.m[w]
		if !ok {
			id = int32(len(in.m))
			in.m[w] = id
		}
		out[i] = id
	}
	return out
}

// size returns the number of distinct words seen so far.
func (in *interner) size() int { return len(in.m) }

// counts returns how many times each id below vocab occurs in s.
func counts(s []int32, vocab int) []int32 {
	c := make([]int32, vocab)
	for _, w := range s {
		c[w]++
	}
	return c
}

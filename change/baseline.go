package change

import (
	"bytes"
	"math"
	"strings"
)

// ShingleSize is the k of the k-shingling baseline in the paper's
// experiments (10-SH).
const ShingleSize = 10

// Bytewise returns 1 if a and b differ in any byte, else 0 (BW).
func Bytewise(a, b []byte) float64 {
	if bytes.Equal(a, b) {
		return 0
	}
	return 1
}

// Cosine returns 1 − cos(v_a, v_b) of the TF·IDF vectors of a and b (COS).
// TF is the number of occurrences of the word in the document. IDF is
// computed over the collection formed by the two documents themselves
// (N = 2), smoothed so that no word gets zero weight:
// idf(w) = 1 + ln((1+N) / (1+df(w))), where df(w) ∈ {1, 2} is the number of
// the two documents that contain w. A word in both documents weighs 1, a
// word in only one weighs 1 + ln 1.5 ≈ 1.405. Documents with the same word
// counts (a reordering) are at distance exactly 0; an empty document is at
// distance 1 from a non-empty one and 0 from another empty one.
func Cosine(a, b []string) float64 {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	return cosineIDs(ia, ib, in.size())
}

func cosineIDs(a, b []int32, vocab int) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	ca, cb := counts(a, vocab), counts(b, vocab)
	same := true
	for w := range ca {
		if ca[w] != cb[w] {
			same = false
			break
		}
	}
	if same {
		return 0
	}
	const n = 2
	idfBoth := 1 + math.Log((1+n)/(1+2.0))
	idfOne := 1 + math.Log((1+n)/(1+1.0))
	var dot, na, nb float64
	for w := range ca {
		fa, fb := float64(ca[w]), float64(cb[w])
		idf := idfOne
		if ca[w] > 0 && cb[w] > 0 {
			idf = idfBoth
		}
		va, vb := fa*idf, fb*idf
		dot += va * vb
		na += va * va
		nb += vb * vb
	}
	return clamp01(1 - dot/(math.Sqrt(na)*math.Sqrt(nb)))
}

// WordDistance returns 1 − 2·|common words| / (m+n) (WD), where the common
// words are counted as a multiset: a word occurring 3 times in a and twice
// in b contributes 2. Two empty documents are at distance 0.
func WordDistance(a, b []string) float64 {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	return wordDistanceIDs(ia, ib, in.size())
}

func wordDistanceIDs(a, b []int32, vocab int) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	ca, cb := counts(a, vocab), counts(b, vocab)
	common := 0
	for w := range ca {
		common += int(min(ca[w], cb[w]))
	}
	return clamp01(1 - 2*float64(common)/float64(len(a)+len(b)))
}

// EditDistance returns δ/(m+n) (ED), where δ = m + n − 2·|LCS| is the
// number of single-word insertions and deletions that turn a into b. Two
// empty documents are at distance 0.
func EditDistance(a, b []string) float64 {
	return editDistance(len(a), len(b), len(LCS(a, b)))
}

func editDistance(m, n, lcs int) float64 {
	if m+n == 0 {
		return 0
	}
	return float64(m+n-2*lcs) / float64(m+n)
}

// Shingling returns 1 − |S(a) ∩ S(b)| / |S(a) ∪ S(b)| (k-SH), where S(d) is
// the set of k-shingles of d: the k consecutive words starting at each
// position, wrapping around the end so that every word starts one shingle.
// A document shorter than k wraps more than once. k < 1 is taken as 1. Two
// empty documents are at distance 0, an empty and a non-empty one at 1.
func Shingling(a, b []string, k int) float64 {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	return shinglingIDs(ia, ib, k)
}

func shinglingIDs(a, b []int32, k int) float64 {
	k = max(k, 1)
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	sa, okA := newShingleSet(a, k)
	sb, okB := newShingleSet(b, k)
	if !okA || !okB {
		return shinglingExact(a, b, k)
	}
	common := 0
	for h, start := range sb.first {
		if other, ok := sa.first[h]; ok {
			if !sameShingle(a, int(other), b, int(start), k) {
				return shinglingExact(a, b, k)
			}
			common++
		}
	}
	union := len(sa.first) + len(sb.first) - common
	return clamp01(1 - float64(common)/float64(union))
}

// shingleSet holds the distinct shingles of one document, by hash, each
// represented by the position where it first starts.
type shingleSet struct {
	first map[uint64]int32
}

// newShingleSet hashes every shingle of s. It reports false if two
// different shingles share a hash, which makes the caller fall back to
// exact keys.
func newShingleSet(s []int32, k int) (shingleSet, bool) {
	set := shingleSet{first: make(map[uint64]int32, len(s))}
	for i := range s {
		h := hashShingle(s, i, k)
		if j, ok := set.first[h]; ok {
			if !sameShingle(s, int(j), s, i, k) {
				return set, false
			}
			continue
		}
		set.first[h] = int32(i)
	}
	return set, true
}

// hashShingle hashes the k words of s starting at i, wrapping around.
func hashShingle(s []int32, i, k int) uint64 {
	h := uint64(0x9e3779b97f4a7c15) ^ uint64(k)
	for j := range k {
		h = mix64(h ^ uint64(uint32(s[(i+j)%len(s)])))
	}
	return h
}

// mix64 is the SplitMix64 finalizer.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func sameShingle(a []int32, i int, b []int32, j int, k int) bool {
	for t := range k {
		if a[(i+t)%len(a)] != b[(j+t)%len(b)] {
			return false
		}
	}
	return true
}

// shinglingExact computes k-SH with the shingles' words as map keys.
func shinglingExact(a, b []int32, k int) float64 {
	keys := func(s []int32) map[string]struct{} {
		set := make(map[string]struct{}, len(s))
		var sb strings.Builder
		for i := range s {
			sb.Reset()
			for t := range k {
				w := uint32(s[(i+t)%len(s)])
				sb.WriteByte(byte(w))
				sb.WriteByte(byte(w >> 8))
				sb.WriteByte(byte(w >> 16))
				sb.WriteByte(byte(w >> 24))
			}
			set[sb.String()] = struct{}{}
		}
		return set
	}
	sa, sb := keys(a), keys(b)
	common := 0
	for key := range sb {
		if _, ok := sa[key]; ok {
			common++
		}
	}
	return clamp01(1 - float64(common)/float64(len(sa)+len(sb)-common))
}

// clamp01 keeps v in [0, 1] against rounding.
func clamp01(v float64) float64 {
	return min(max(v, 0), 1)
}

package changeeval

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Kind is one of the six change types of the paper's criteria.
type Kind int

// The six change types, in the order of the paper's Fig. 7 and 8.
const (
	// Add inserts words the document does not contain.
	Add Kind = iota
	// Drop deletes words that occur only once.
	Drop
	// Copy inserts words the document already contains.
	Copy
	// Shrink deletes one of several occurrences of words, so each deleted
	// word still occurs afterwards.
	Shrink
	// Replace turns the words at some positions into other words.
	Replace
	// Move changes the position of words.
	Move
)

// Kinds lists the six change types in figure order.
var Kinds = []Kind{Add, Drop, Copy, Shrink, Replace, Move}

var kindNames = [...]string{"add", "drop", "copy", "shrink", "replace", "move"}

// String returns the lower-case name of k ("add", "drop", …).
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Criterion returns the paper's change degree for x words changed by kind
// k in an n-word document: add x/(n+x), copy αx/(n+x), drop x/n, shrink
// αx/n, replace x/n, move βx/n. It returns 0 for n ≤ 0 or an unknown kind.
func Criterion(k Kind, n, x int, alpha, beta float64) float64 {
	if n <= 0 {
		return 0
	}
	fn, fx := float64(n), float64(x)
	switch k {
	case Add:
		return fx / (fn + fx)
	case Copy:
		return alpha * fx / (fn + fx)
	case Drop, Replace:
		return fx / fn
	case Shrink:
		return alpha * fx / fn
	case Move:
		return beta * fx / fn
	}
	return 0
}

// ErrSize reports a change that cannot be made on a document of that size.
var ErrSize = errors.New("change does not fit the document")

// Synthesize returns an n-word document and the same document with x of
// its words changed by kind k, in one contiguous cluster whose position is
// drawn from seed. Every word of the original is distinct except where the
// kind needs repeats, so each change is exactly of its kind:
//
//   - Add inserts x new distinct words at one position.
//   - Copy inserts, at one position, x words drawn from the document
//     without replacement (cycling through it again when x > n).
//   - Drop deletes x consecutive words (each the only occurrence).
//   - Shrink starts from n−x distinct words with a cluster of x words drawn
//     from them inserted at one position, and deletes that cluster; every
//     deleted word still occurs. Needs x < n.
//   - Replace turns x consecutive words into x new distinct words.
//   - Move cuts x consecutive words and puts them back in reverse order at
//     another position, at least one word away. Every moved word then
//     changes position relative to all others (the LCS of the two versions
//     is n−x long), so x can range up to n−1, the paper's maximum; a
//     cluster moved in order past fewer than x words would count as that
//     many moved words instead. Needs 1 ≤ x ≤ n−1, or x = 0.
//
// Other sizes return an error wrapping ErrSize.
func Synthesize(k Kind, n, x int, seed uint64) (old, changed []string, err error) {
	if n < 1 || x < 0 {
		return nil, nil, fmt.Errorf("synthesize %v of %d words in %d: %w", k, x, n, ErrSize)
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)<<20^uint64(x)))
	switch k {
	case Add:
		old = distinct("w", n)
		p := r.IntN(n + 1)
		changed = splice(old, p, p, distinct("new", x))
	case Copy:
		old = distinct("w", n)
		p := r.IntN(n + 1)
		changed = splice(old, p, p, drawFrom(r, old, x))
	case Drop:
		if x > n {
			return nil, nil, fmt.Errorf("drop %d of %d words: %w", x, n, ErrSize)
		}
		old = distinct("w", n)
		p := r.IntN(n - x + 1)
		changed = splice(old, p, p+x, nil)
	case Shrink:
		if x >= n && x > 0 {
			return nil, nil, fmt.Errorf("shrink %d of %d words (some must remain): %w", x, n, ErrSize)
		}
		changed = distinct("w", n-x)
		p := r.IntN(n - x + 1)
		old = splice(changed, p, p, drawFrom(r, changed, x))
	case Replace:
		if x > n {
			return nil, nil, fmt.Errorf("replace %d of %d words: %w", x, n, ErrSize)
		}
		old = distinct("w", n)
		p := r.IntN(n - x + 1)
		changed = splice(old, p, p+x, distinct("new", x))
	case Move:
		if x > n-1 && x > 0 {
			return nil, nil, fmt.Errorf("move %d of %d words (at most n−1): %w", x, n, ErrSize)
		}
		old = distinct("w", n)
		p := r.IntN(n - x + 1)
		rest := splice(old, p, p+x, nil)
		cluster := make([]string, x)
		for i := range cluster {
			cluster[i] = old[p+x-1-i]
		}
		// Another gap of rest than the one the cluster came from.
		q := p
		if x > 0 {
			q = r.IntN(n - x)
			if q >= p {
				q++
			}
		}
		changed = splice(rest, q, q, cluster)
	default:
		return nil, nil, fmt.Errorf("synthesize %v: unknown kind", k)
	}
	return old, changed, nil
}

// distinct returns n distinct words prefix0, prefix1, ….
func distinct(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = prefix + strconv.Itoa(i)
	}
	return s
}

// drawFrom returns x words of s in random order, each word at most once
// until all of s has been used.
func drawFrom(r *rand.Rand, s []string, x int) []string {
	out := make([]string, 0, x)
	for len(out) < x {
		for _, i := range r.Perm(len(s)) {
			if len(out) == x {
				break
			}
			out = append(out, s[i])
		}
	}
	return out
}

// splice returns s with s[i:j] replaced by ins, as a new slice.
func splice(s []string, i, j int, ins []string) []string {
	out := make([]string, 0, len(s)-(j-i)+len(ins))
	out = append(out, s[:i]...)
	out = append(out, ins...)
	return append(out, s[j:]...)
}

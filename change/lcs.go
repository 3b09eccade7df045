package change

import "context"

// ExactCost is the least number of edit steps the search for the middle
// of a shortest edit path explores before it gives up and splits the
// inputs at the furthest points it reached, as diff tools do on very
// different inputs. The limit is WorkBudget/(m+n) edit steps when that is
// more: inputs of up to 8,192 words in all are always compared exactly,
// and the limit falls to ExactCost at 262,144 words. A part of the inputs
// whose edit distance (insertions plus deletions) is at most twice the
// limit gets its exact LCS; beyond, the common subsequence found may be
// shorter than the longest, so that ED and IED may overstate the change
// (Comparison.Approximate says so). The time of the LCS is thus
// O(max(WorkBudget, (m+n)·ExactCost)) on any input.
const ExactCost = 256

// WorkBudget sets the cost limit of inputs of fewer than 262,144 words:
// WorkBudget/(m+n) edit steps.
const WorkBudget = 1 << 26

// costLimit is the cut-off for inputs of n words in all. A variable so
// that tests can lift it.
var costLimit = func(n int) int { return max(ExactCost, WorkBudget/max(n, 1)) }

// Match pairs a word of the old sequence with an equal word of the new one.
// A and B are 0-based indexes into the old and the new sequence.
type Match struct {
	A, B int
}

// LCS returns a longest common subsequence of a and b as matched index
// pairs, increasing in both A and B. It runs in O((m+n)·D) time and O(m+n)
// space, where D is the number of insertions and deletions that turn a
// into b (Myers' divide-and-conquer "middle snake" algorithm), after
// removing the common prefix and suffix and the words that occur in only
// one of the two sequences. When several LCSs exist, which one is returned
// is deterministic but unspecified.
//
// On inputs whose edit distance exceeds the cost limit (see ExactCost) the
// subsequence returned is common but may be shorter than the longest.
func LCS(a, b []string) []Match {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	mA, _, _ := lcsIDs(context.Background(), ia, ib, in.size())
	out := make([]Match, 0, countMatched(mA))
	for i, j := range mA {
		if j >= 0 {
			out = append(out, Match{A: i, B: int(j)})
		}
	}
	return out
}

// countMatched returns how many entries of mA are matched (non-negative).
func countMatched(mA []int32) int {
	n := 0
	for _, j := range mA {
		if j >= 0 {
			n++
		}
	}
	return n
}

// lcsIDs computes an LCS of two id sequences whose ids are below vocab. The
// result has len(a) entries: the index in b matched to a[i], or -1.
// approx reports that the cost limit cut a search short (the subsequence
// is common but maybe not longest); err is ctx's error when it ended the
// search, with the subsequence found so far.
func lcsIDs(ctx context.Context, a, b []int32, vocab int) (mA []int32, approx bool, err error) {
	mA = make([]int32, len(a))
	for i := range mA {
		mA[i] = -1
	}
	// Common prefix and suffix are part of some LCS.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		mA[pre] = int32(pre)
		pre++
	}
	sa, sb := len(a), len(b)
	for sa > pre && sb > pre && a[sa-1] == b[sb-1] {
		sa--
		sb--
		mA[sa] = int32(sb)
	}
	if sa == pre || sb == pre {
		return mA, false, nil
	}

	// Words that occur in only one of the middles can never be matched, so
	// dropping them leaves the LCS unchanged and shrinks the search.
	inA := make([]bool, vocab)
	inB := make([]bool, vocab)
	for _, w := range a[pre:sa] {
		inA[w] = true
	}
	for _, w := range b[pre:sb] {
		inB[w] = true
	}
	ca, xa := compact(a[pre:sa], inB, pre)
	cb, xb := compact(b[pre:sb], inA, pre)
	if len(ca) == 0 || len(cb) == 0 {
		return mA, false, nil
	}

	d := newMyers(ca, cb)
	d.ctx = ctx
	d.limit = costLimit(len(ca) + len(cb))
	d.compare(0, len(ca), 0, len(cb))
	for i, j := range d.match {
		if j >= 0 {
			mA[xa[i]] = xb[j]
		}
	}
	return mA, d.approx, d.err
}

// compact keeps the words of s that keep[w] allows, with their original
// indexes offset by base.
func compact(s []int32, keep []bool, base int) (words []int32, index []int32) {
	n := 0
	for _, w := range s {
		if keep[w] {
			n++
		}
	}
	words = make([]int32, 0, n)
	index = make([]int32, 0, n)
	for i, w := range s {
		if keep[w] {
			words = append(words, w)
			index = append(index, int32(base+i))
		}
	}
	return words, index
}

// myers holds the state of one linear-space LCS computation.
type myers struct {
	a, b   []int32
	fwd    []int32 // furthest x per diagonal of the forward search
	bwd    []int32 // furthest x per diagonal of the backward search (reversed coordinates)
	off    int     // index of diagonal 0 in fwd and bwd
	match  []int32 // match[i] is the index in b matched to a[i], or -1
	failed bool    // set if a middle snake was not found (never expected)
	limit  int     // edit steps a middle-snake search may take; 0: no limit
	approx bool    // a search hit the limit and split at its furthest point
	cut    bool    // the last middleSnake result is a cut in three, not a snake
	ctx    context.Context
	err    error // ctx's error, once it ended the computation
}

func newMyers(a, b []int32) *myers {
	size := len(a) + len(b) + 3
	d := &myers{
		a:     a,
		b:     b,
		fwd:   make([]int32, size),
		bwd:   make([]int32, size),
		off:   len(b) + 1,
		match: make([]int32, len(a)),
	}
	for i := range d.match {
		d.match[i] = -1
	}
	return d
}

// compare records an LCS of a[aLo:aHi] and b[bLo:bHi] into d.match.
func (d *myers) compare(aLo, aHi, bLo, bHi int) {
	for {
		if d.ctx != nil && d.err == nil {
			d.err = d.ctx.Err()
		}
		if d.err != nil {
			return // what is matched so far is still a common subsequence
		}
		for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
			d.match[aLo] = int32(bLo)
			aLo++
			bLo++
		}
		for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
			aHi--
			bHi--
			d.match[aHi] = int32(bHi)
		}
		if aLo == aHi || bLo == bHi {
			return
		}
		x0, y0, x1, y1, ok := d.middleSnake(aLo, aHi, bLo, bHi)
		if !ok {
			// Leaving the rest unmatched is still a common subsequence.
			d.failed = d.err == nil
			return
		}
		if d.cut {
			// The ends are within the cost limit: solve them, and go on
			// with the middle.
			d.cut = false
			d.compare(aLo, x0, bLo, y0)
			d.compare(x1, aHi, y1, bHi)
			aLo, aHi, bLo, bHi = x0, x1, y0, y1
			continue
		}
		for x, y := x0, y0; x < x1; x, y = x+1, y+1 {
			d.match[x] = int32(y)
		}
		// Recurse into the smaller half and loop on the larger one, so the
		// stack stays logarithmic.
		if (x0-aLo)+(y0-bLo) < (aHi-x1)+(bHi-y1) {
			d.compare(aLo, x0, bLo, y0)
			aLo, bLo = x1, y1
		} else {
			d.compare(x1, aHi, y1, bHi)
			aHi, bHi = x0, y0
		}
	}
}

// middleSnake finds a snake (x0,y0)→(x1,y1), possibly empty, that lies on
// a shortest edit path of a[aLo:aHi] against b[bLo:bHi]. Both ranges are
// non-empty and share neither first nor last word. Coordinates returned are
// absolute indexes into a and b.
//
// The forward search walks from (aLo,bLo), the backward search from
// (aHi,bHi) on the reversed sequences; each keeps, per diagonal k = x−y,
// the furthest x reached with d edits. Diagonals are limited to those that
// cross the rectangle, and moves that would leave it are not taken: a path
// that reaches an edge is finished by walking along it, so no shortest path
// needs such a move.
func (d *myers) middleSnake(aLo, aHi, bLo, bHi int) (x0, y0, x1, y1 int, ok bool) {
	a, b := d.a[aLo:aHi], d.b[bLo:bHi]
	n, m := len(a), len(b)
	delta := n - m
	odd := delta&1 != 0
	off := d.off
	// Views of the diagonal arrays covering k in [−m−1, n+1].
	fwd := d.fwd[off-m-1 : off+n+2]
	bwd := d.bwd[off-m-1 : off+n+2]
	base := m + 1 // index of diagonal 0 in the views
	const dead = -1

	// Ranges of diagonals computed at the previous step, per direction.
	fLo, fHi := 1, 0 // empty
	rLo, rHi := 1, 0
	maxD := (n + m + 1) / 2
	for e := 0; e <= maxD; e++ {
		if e&63 == 63 && d.ctx != nil {
			if d.err = d.ctx.Err(); d.err != nil {
				return 0, 0, 0, 0, false
			}
		}
		if d.limit > 0 && e > d.limit {
			x0, y0, x1, y1, d.cut = d.furthest(n, m, fwd, bwd, base, fLo, fHi, rLo, rHi)
			d.approx = true
			return aLo + x0, bLo + y0, aLo + x1, bLo + y1, true
		}
		lo, hi := diagRange(e, n, m)
		// Forward step. A path on diagonal k comes from k−1 by a move right
		// or from k+1 by a move down; the range of diagonals grows by at
		// most one on each side per step, so k−1 ≤ fHi and k+1 ≥ fLo.
		for k := lo; k <= hi; k += 2 {
			x := 0
			if e > 0 {
				x = dead
				if k-1 >= fLo {
					if r := int(fwd[base+k-1]); r >= 0 && r < n {
						x = r + 1
					}
				}
				if k+1 <= fHi {
					if dn := int(fwd[base+k+1]); dn > x && dn-k-1 < m {
						x = dn
					}
				}
				if x == dead {
					fwd[base+k] = dead
					continue
				}
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			fwd[base+k] = int32(x)
			if odd {
				if kr := delta - k; kr >= rLo && kr <= rHi {
					if v := int(bwd[base+kr]); v != dead && x+v >= n {
						return aLo + sx, bLo + sy, aLo + x, bLo + y, true
					}
				}
			}
		}
		fLo, fHi = lo, hi
		// Backward step, the same on the reversed sequences.
		for k := lo; k <= hi; k += 2 {
			x := 0
			if e > 0 {
				x = dead
				if k-1 >= rLo {
					if r := int(bwd[base+k-1]); r >= 0 && r < n {
						x = r + 1
					}
				}
				if k+1 <= rHi {
					if dn := int(bwd[base+k+1]); dn > x && dn-k-1 < m {
						x = dn
					}
				}
				if x == dead {
					bwd[base+k] = dead
					continue
				}
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && a[n-1-x] == b[m-1-y] {
				x++
				y++
			}
			bwd[base+k] = int32(x)
			if !odd {
				if kf := delta - k; kf >= fLo && kf <= fHi {
					if v := int(fwd[base+kf]); v != dead && x+v >= n {
						return aLo + n - x, bLo + m - y, aLo + n - sx, bLo + m - sy, true
					}
				}
			}
		}
		rLo, rHi = lo, hi
	}
	return 0, 0, 0, 0, false
}

// furthest returns, relative to the rectangle's corner, the points that
// the forward and the backward search got furthest to (the most words of
// both sequences behind them), when the cost limit cuts a search short.
// When the forward point comes before the backward one, the rectangle is
// cut in three: the two ends, each within the limit of edits, and the
// middle between the points (cut is true); otherwise it is split at the
// further of the two points (x0 = x1, y0 = y1). Either way every part is
// smaller than the whole.
func (d *myers) furthest(n, m int, fwd, bwd []int32, base, fLo, fHi, rLo, rHi int) (x0, y0, x1, y1 int, cut bool) {
	bestF, bestB := -1, -1
	var fx, fy, bx, by int
	for k := fLo; k <= fHi; k += 2 {
		if v := int(fwd[base+k]); v >= 0 {
			if p := 2*v - k; p > bestF && p < n+m {
				bestF, fx, fy = p, v, v-k
			}
		}
	}
	for k := rLo; k <= rHi; k += 2 {
		if v := int(bwd[base+k]); v >= 0 {
			if p := 2*v - k; p > bestB && p < n+m {
				bestB, bx, by = p, n-v, m-(v-k)
			}
		}
	}
	switch {
	case bestF > 0 && bestB > 0 && fx <= bx && fy <= by:
		return fx, fy, bx, by, true
	case bestF >= bestB && bestF > 0:
		return fx, fy, fx, fy, false
	case bestB > 0:
		return bx, by, bx, by, false
	}
	return n / 2, m / 2, n / 2, m / 2, false // cannot happen after a step
}

// diagRange returns the diagonals with the parity of e, within [−e, e], that
// cross an n×m rectangle (k in [−m, n]).
func diagRange(e, n, m int) (lo, hi int) {
	lo, hi = -e, e
	if lo < -m {
		lo = -m
		if (lo+e)&1 != 0 {
			lo++
		}
	}
	if hi > n {
		hi = n
		if (e-hi)&1 != 0 {
			hi--
		}
	}
	return lo, hi
}

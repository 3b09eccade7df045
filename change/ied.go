package change

import (
	"context"
	"errors"
	"fmt"
)

// Costs are the prices of the two weighted IED operations. Add, drop and
// replace always cost 1.
type Costs struct {
	// S is the cost of a copy (inserting a word the document already has)
	// and of a shrink (deleting one of several occurrences of a word).
	S float64 `json:"s"`
	// T is the cost of a move (a word that changes position).
	T float64 `json:"t"`
}

// DefaultCosts returns the costs of the paper's experiments, s = t = 0.75.
func DefaultCosts() Costs { return Costs{S: 0.75, T: 0.75} }

// ErrCost reports a cost outside [0, 1].
var ErrCost = errors.New("cost must be a number in [0, 1]")

// Validate reports whether both costs lie in [0, 1].
func (c Costs) Validate() error {
	if !(c.S >= 0 && c.S <= 1) {
		return fmt.Errorf("copy/shrink cost s = %v: %w", c.S, ErrCost)
	}
	if !(c.T >= 0 && c.T <= 1) {
		return fmt.Errorf("move cost t = %v: %w", c.T, ErrCost)
	}
	return nil
}

// Ops counts the edit operations of an IED edit script.
type Ops struct {
	Add     int `json:"add"`
	Copy    int `json:"copy"`
	Drop    int `json:"drop"`
	Shrink  int `json:"shrink"`
	Replace int `json:"replace"`
	Move    int `json:"move"`
}

// Delta returns the cost of the operations: add, drop and replace cost 1,
// copy and shrink cost c.S, move costs c.T.
func (o Ops) Delta(c Costs) float64 {
	return float64(o.Add+o.Drop+o.Replace) + c.S*float64(o.Copy+o.Shrink) + c.T*float64(o.Move)
}

// Result is the outcome of comparing two word sequences with IED.
type Result struct {
	// Ops are the operation counts of the edit script.
	Ops Ops `json:"ops"`
	// Delta is δ_E, the cost of the edit script (Ops.Delta of the costs).
	Delta float64 `json:"delta"`
	// Distance is D_IED = Delta / max(m, n), 0 when both sequences are empty.
	// It is not bounded by 1: see the package documentation.
	Distance float64 `json:"distance"`
}

// IED computes the Improved Edit Distance from a (old, m words) to b (new,
// n words) with the five steps of the specification:
//
//  1. take an LCS of a and b; A′ and B′ are the words outside it;
//  2. a word in both A′ and B′ is moved min(count in A′, count in B′)
//     times, except, when t > 2s, a word that occurs more than once in a
//     and more than once in b (it becomes shrink+copy in step 3);
//  3. copy quota min(count in B′, count in b − 1), shrink quota
//     min(count in A′, count in a − 1): (a) a word with both quotas is
//     shrunk and copied min(quotas) times; (b) an A′ word with shrink quota
//     and a B′ word with copy quota at the same position are shrunk and
//     copied if s < 0.5, else kept for step 4 and taken off the quotas;
//     (c) what is left of the quotas is shrunk or copied;
//  4. A′ and B′ words at the same position are replaced; the other A′
//     words are dropped and the other B′ words added;
//  5. δ_E is the cost of the operations and D_IED = δ_E / max(m, n).
//
// Where a step removes fewer words of one kind than A′ or B′ holds, it
// removes first the words that have no A′/B′ partner at the same position
// (judged when the step starts), then by position; such partners are
// cheaper to keep for step 3(b) and 4. IED uses c as given; call
// Costs.Validate to reject costs outside [0, 1].
func IED(a, b []string, c Costs) Result {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	mA, _, _ := lcsIDs(context.Background(), ia, ib, in.size())
	return iedIDs(ia, ib, mA, in.size(), c)
}

// side holds the A′ (or B′) words of one sequence during the IED steps.
type side struct {
	words    []int32 // the whole sequence, by position
	alive    []bool  // position is still in A′ (B′)
	reserved []bool  // kept for replacement by step 3(b)
	rest     []int32 // per word: alive positions
	start    []int32 // per word: first index in pos
	pos      []int32 // A′ (B′) positions grouped by word, ascending within a word
	partner  []bool  // snapshot: position has a live partner on the other side
}

func newSide(words []int32, matched []bool, vocab int) *side {
	s := &side{
		words:    words,
		alive:    make([]bool, len(words)),
		reserved: make([]bool, len(words)),
		rest:     make([]int32, vocab),
		start:    make([]int32, vocab+1),
		partner:  make([]bool, len(words)),
	}
	total := 0
	for i, w := range words {
		if !matched[i] {
			s.alive[i] = true
			s.rest[w]++
			total++
		}
	}
	for w := range vocab {
		s.start[w+1] = s.start[w] + s.rest[w]
	}
	s.pos = make([]int32, total)
	next := make([]int32, vocab)
	copy(next, s.start[:vocab])
	for i, w := range words {
		if s.alive[i] {
			s.pos[next[w]] = int32(i)
			next[w]++
		}
	}
	return s
}

// snapshotPartners records which live positions have a live word at the
// same position on the other side.
func (s *side) snapshotPartners(other *side) {
	for i := range s.partner {
		s.partner[i] = s.alive[i] && i < len(other.alive) && other.alive[i]
	}
}

// remove takes k live, unreserved words w out of the side, those without a
// partner first, then by position. It returns how many it removed.
func (s *side) remove(w int32, k int) int {
	done := 0
	list := s.pos[s.start[w]:s.start[w+1]]
	for pass := 0; pass < 2 && done < k; pass++ {
		wantPartner := pass == 1
		for _, p := range list {
			if done == k {
				break
			}
			if s.alive[p] && !s.reserved[p] && s.partner[p] == wantPartner {
				s.alive[p] = false
				s.rest[w]--
				done++
			}
		}
	}
	return done
}

// iedIDs runs the IED steps on id sequences, given an LCS as mA (index in b
// matched to a[i], or -1).
func iedIDs(a, b []int32, mA []int32, vocab int, c Costs) Result {
	m, n := len(a), len(b)
	if m == 0 && n == 0 {
		return Result{}
	}
	cntA, cntB := counts(a, vocab), counts(b, vocab)

	// Step 1: A′ and B′ are what the LCS leaves.
	matchedA := make([]bool, m)
	matchedB := make([]bool, n)
	for i, j := range mA {
		if j >= 0 {
			matchedA[i] = true
			matchedB[j] = true
		}
	}
	A := newSide(a, matchedA, vocab)
	B := newSide(b, matchedB, vocab)
	var ops Ops

	// Step 2: moves.
	A.snapshotPartners(B)
	B.snapshotPartners(A)
	for w := range int32(vocab) {
		ra, rb := A.rest[w], B.rest[w]
		if ra == 0 || rb == 0 {
			continue
		}
		if c.T > 2*c.S && cntA[w] > 1 && cntB[w] > 1 {
			continue
		}
		k := int(min(ra, rb))
		ops.Move += k
		A.remove(w, k)
		B.remove(w, k)
	}

	// Step 3: copies and shrinks.
	copyQ := make([]int32, vocab)
	shrinkQ := make([]int32, vocab)
	for w := range vocab {
		copyQ[w] = min(B.rest[w], cntB[w]-1)
		shrinkQ[w] = min(A.rest[w], cntA[w]-1)
	}
	// (a) words with both quotas.
	A.snapshotPartners(B)
	B.snapshotPartners(A)
	for w := range int32(vocab) {
		if copyQ[w] <= 0 || shrinkQ[w] <= 0 {
			continue
		}
		k := min(copyQ[w], shrinkQ[w])
		ops.Shrink += A.remove(w, int(k))
		ops.Copy += B.remove(w, int(k))
		copyQ[w] -= k
		shrinkQ[w] -= k
	}
	// (b) shrink and copy candidates at the same position.
	for p := range min(m, n) {
		if !A.alive[p] || !B.alive[p] {
			continue
		}
		wa, wb := a[p], b[p]
		if shrinkQ[wa] <= 0 || copyQ[wb] <= 0 {
			continue
		}
		shrinkQ[wa]--
		copyQ[wb]--
		if c.S < 0.5 {
			ops.Shrink++
			ops.Copy++
			A.alive[p] = false
			A.rest[wa]--
			B.alive[p] = false
			B.rest[wb]--
		} else {
			A.reserved[p] = true
			B.reserved[p] = true
		}
	}
	// (c) the rest of the quotas.
	A.snapshotPartners(B)
	B.snapshotPartners(A)
	for w := range int32(vocab) {
		if shrinkQ[w] > 0 {
			ops.Shrink += A.remove(w, int(shrinkQ[w]))
		}
		if copyQ[w] > 0 {
			ops.Copy += B.remove(w, int(copyQ[w]))
		}
	}

	// Step 4: replace, drop, add.
	for p := range max(m, n) {
		la := p < m && A.alive[p]
		lb := p < n && B.alive[p]
		switch {
		case la && lb:
			ops.Replace++
		case la:
			ops.Drop++
		case lb:
			ops.Add++
		}
	}

	// Step 5.
	delta := ops.Delta(c)
	return Result{Ops: ops, Delta: delta, Distance: delta / float64(max(m, n))}
}

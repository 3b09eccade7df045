package change

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"testing/quick"
)

func TestIED_workedExample(t *testing.T) {
	a := words("w1 w2 w2 w2 w3 w3 w4 w5 w2")
	b := words("w3 w1 w4 w2 w3 w5 w5 w6 w6 w7")
	got := IED(a, b, Costs{S: 0.4, T: 0.9})
	want := Ops{Add: 2, Drop: 0, Copy: 3, Shrink: 4, Replace: 0, Move: 1}
	if got.Ops != want {
		t.Fatalf("ops = %+v, want %+v", got.Ops, want)
	}
	if math.Abs(got.Delta-5.7) > 1e-9 {
		t.Errorf("δ_E = %v, want 5.7", got.Delta)
	}
	if math.Abs(got.Distance-0.57) > 1e-9 {
		t.Errorf("D_IED = %v, want 0.57", got.Distance)
	}
}

func TestIED(t *testing.T) {
	def := DefaultCosts()
	tests := []struct {
		name  string
		a, b  string
		c     Costs
		want  Ops
		delta float64
	}{
		{"both empty", "", "", def, Ops{}, 0},
		{"identical", "a b c a", "a b c a", def, Ops{}, 0},
		{"from empty", "", "a b c", def, Ops{Add: 3}, 3},
		// Deleting everything: one a is a shrink, the last a and b are drops.
		{"to empty", "a b a", "", def, Ops{Drop: 2, Shrink: 1}, 2 + 0.75},
		{"add", "a b c", "a b x c", def, Ops{Add: 1}, 1},
		{"copy", "a b c", "a b a c", def, Ops{Copy: 1}, 0.75},
		{"drop", "a b c", "a c", def, Ops{Drop: 1}, 1},
		{"shrink", "a b a c", "a b c", def, Ops{Shrink: 1}, 0.75},
		{"replace", "a b c", "a x c", def, Ops{Replace: 1}, 1},
		{"move", "a b c d", "b c d a", def, Ops{Move: 1}, 0.75},
		// t ≤ 2s: the duplicated word a is moved twice.
		{"duplicates moved", "a a b b b", "b b b a a", def, Ops{Move: 2}, 1.5},
		// t > 2s: a occurs twice in both, so it is not moved; step 3(a)
		// shrinks and copies one pair and the other pair is left over as a
		// drop and an add (the five steps do not always find the cheapest
		// script: two moves would cost 1.8).
		{"duplicates not moved", "a a b b b", "b b b a a", Costs{S: 0.3, T: 0.9}, Ops{Shrink: 1, Copy: 1, Drop: 1, Add: 1}, 2.6},
		// Worked example with s ≥ 0.5: the same-position pair w2/w6 of step
		// 3(b) becomes a replacement, and t ≤ 2s moves w3 too.
		{"worked example s=0.6", "w1 w2 w2 w2 w3 w3 w4 w5 w2", "w3 w1 w4 w2 w3 w5 w5 w6 w6 w7", Costs{S: 0.6, T: 0.9},
			Ops{Add: 2, Copy: 1, Shrink: 2, Replace: 1, Move: 2}, 6.6},
		// Step 3(b) with s < 0.5: shrink a and copy b at position 1.
		{"same-position shrink+copy", "a x a", "b x a b", Costs{S: 0.4, T: 0.4}, Ops{Shrink: 1, Copy: 1, Add: 1}, 1.8},
		// With s ≥ 0.5 the pair is replaced, and it used up b's copy quota,
		// so the second b is an add.
		{"same-position replace", "a x a", "b x a b", Costs{S: 0.6, T: 0.4}, Ops{Replace: 1, Add: 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := words(tt.a), words(tt.b)
			got := IED(a, b, tt.c)
			if got.Ops != tt.want {
				t.Fatalf("ops = %+v, want %+v", got.Ops, tt.want)
			}
			if math.Abs(got.Delta-tt.delta) > 1e-9 {
				t.Errorf("δ_E = %v, want %v", got.Delta, tt.delta)
			}
			wantD := 0.0
			if n := max(len(a), len(b)); n > 0 {
				wantD = tt.delta / float64(n)
			}
			if math.Abs(got.Distance-wantD) > 1e-9 {
				t.Errorf("D_IED = %v, want %v", got.Distance, wantD)
			}
		})
	}
}

func TestCosts_Validate(t *testing.T) {
	tests := []struct {
		c  Costs
		ok bool
	}{
		{Costs{0, 0}, true},
		{Costs{1, 1}, true},
		{DefaultCosts(), true},
		{Costs{-0.1, 0.5}, false},
		{Costs{0.5, 1.5}, false},
		{Costs{math.NaN(), 0.5}, false},
		{Costs{0.5, math.Inf(1)}, false},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tt.c, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrCost) {
			t.Errorf("Validate(%+v) = %v, want ErrCost", tt.c, err)
		}
	}
}

func TestOps_Delta(t *testing.T) {
	o := Ops{Add: 1, Copy: 2, Drop: 3, Shrink: 4, Replace: 5, Move: 6}
	if got, want := o.Delta(Costs{S: 0.5, T: 0.25}), 1+3+5+0.5*6+0.25*6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("Delta = %v, want %v", got, want)
	}
}

// TestIED_exceedsOne shows that D_IED is not bounded by 1: a is shrunk at
// position 1 (both a's have a same-position partner, so the first is
// taken), the other a is replaced by c, and b is added.
func TestIED_exceedsOne(t *testing.T) {
	got := IED(words("a a"), words("b c"), DefaultCosts())
	want := Ops{Shrink: 1, Replace: 1, Add: 1}
	if got.Ops != want {
		t.Fatalf("ops = %+v, want %+v", got.Ops, want)
	}
	if math.Abs(got.Distance-1.375) > 1e-12 {
		t.Fatalf("D_IED = %v, want 1.375", got.Distance)
	}
}

// iedWith runs the IED steps with a given LCS (pairs of 0-based indexes).
func iedWith(a, b []string, lcs []Match, c Costs) Result {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	mA := make([]int32, len(a))
	for i := range mA {
		mA[i] = -1
	}
	for _, m := range lcs {
		mA[m.A] = int32(m.B)
	}
	return iedIDs(ia, ib, mA, in.size(), c)
}

// TestIED_notSymmetric shows that D_IED(A,B) ≠ D_IED(B,A) can happen: step
// 1 takes "an" LCS, and the two LCSs of this pair (A's first or second w0
// matched with B's w0) lead to different scripts. Myers' search picks one
// of them in each direction.
func TestIED_notSymmetric(t *testing.T) {
	a, b := words("w1 w0 w0"), words("w0 w2 w1 w2")
	c := DefaultCosts()

	// Both LCSs, and the outcome of the steps with each.
	first := iedWith(a, b, []Match{{A: 1, B: 0}}, c)
	second := iedWith(a, b, []Match{{A: 2, B: 0}}, c)
	if want := (Ops{Move: 1, Shrink: 1, Copy: 1, Add: 1}); first.Ops != want {
		t.Fatalf("with A's first w0: %+v, want %+v", first.Ops, want)
	}
	if want := (Ops{Move: 1, Replace: 1, Add: 1}); second.Ops != want {
		t.Fatalf("with A's second w0: %+v, want %+v", second.Ops, want)
	}

	ab, ba := IED(a, b, c), IED(b, a, c)
	if math.Abs(ab.Distance-0.8125) > 1e-12 || math.Abs(ba.Distance-0.6875) > 1e-12 {
		t.Fatalf("D(A,B) = %v, D(B,A) = %v, want 0.8125 and 0.6875", ab.Distance, ba.Distance)
	}
}

// checkInvariants fails unless r is consistent with a and b: every word
// outside the LCS is accounted for by exactly one operation, δ_E is the
// cost of the operations, and 0 ≤ D ≤ (m+n−2·|LCS|)/max(m,n) ≤ 2.
func checkInvariants(t *testing.T, a, b []string, c Costs, r Result) {
	t.Helper()
	l := len(LCS(a, b))
	m, n := len(a), len(b)
	o := r.Ops
	if got := o.Drop + o.Shrink + o.Replace + o.Move; got != m-l {
		t.Fatalf("%q→%q: old-side ops %d, want m−|LCS| = %d (%+v)", a, b, got, m-l, o)
	}
	if got := o.Add + o.Copy + o.Replace + o.Move; got != n-l {
		t.Fatalf("%q→%q: new-side ops %d, want n−|LCS| = %d (%+v)", a, b, got, n-l, o)
	}
	if math.Abs(r.Delta-o.Delta(c)) > 1e-9 {
		t.Fatalf("δ_E = %v, ops cost %v", r.Delta, o.Delta(c))
	}
	if m+n == 0 {
		if r.Distance != 0 {
			t.Fatalf("empty pair at distance %v", r.Distance)
		}
		return
	}
	bound := float64(m+n-2*l) / float64(max(m, n))
	if r.Distance < 0 || r.Distance > bound+1e-9 {
		t.Fatalf("%q→%q: D = %v outside [0, %v]", a, b, r.Distance, bound)
	}
}

func TestIED_properties(t *testing.T) {
	costs := []Costs{DefaultCosts(), {S: 0.4, T: 0.9}, {S: 0, T: 0}, {S: 1, T: 1}, {S: 0.3, T: 0.5}}
	prop := func(seed uint64, ci uint8) bool {
		r := rand.New(rand.NewPCG(seed, 7))
		c := costs[int(ci)%len(costs)]
		v := 1 + r.IntN(6)
		a := randomWords(r, r.IntN(25), v)
		b := mutate(r, a, v)
		if r.IntN(3) == 0 {
			b = randomWords(r, r.IntN(25), v)
		}
		if self := IED(a, a, c); self.Distance != 0 || self.Ops != (Ops{}) {
			t.Errorf("D(A,A) = %+v for %q", self, a)
			return false
		}
		checkInvariants(t, a, b, c, IED(a, b, c))
		checkInvariants(t, b, a, c, IED(b, a, c))
		return !t.Failed()
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

func FuzzIED(f *testing.F) {
	f.Add("w1 w2 w2 w2 w3 w3 w4 w5 w2", "w3 w1 w4 w2 w3 w5 w5 w6 w6 w7", 0.4, 0.9)
	f.Add("a a", "b c", 0.75, 0.75)
	f.Add("w1 w0 w0", "w0 w2 w1 w2", 0.75, 0.75)
	f.Add("", "x y", 0.0, 1.0)
	f.Fuzz(func(t *testing.T, sa, sb string, s, tc float64) {
		c := Costs{S: s, T: tc}
		if c.Validate() != nil {
			return
		}
		a, b := words(sa), words(sb)
		if len(a) > 300 || len(b) > 300 {
			return
		}
		if self := IED(a, a, c); self.Distance != 0 {
			t.Fatalf("D(A,A) = %v", self.Distance)
		}
		checkInvariants(t, a, b, c, IED(a, b, c))
	})
}

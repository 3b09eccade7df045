package change

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBytewise(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"abc", "abd", 1},
		{"a b", "a  b", 1},
		{"", "x", 1},
	}
	for _, tt := range tests {
		if got := Bytewise([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("Bytewise(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCosine(t *testing.T) {
	one := 1 + math.Log(1.5) // weight of a word in only one document
	tests := []struct {
		name, a, b string
		want       float64
	}{
		{"both empty", "", "", 0},
		{"one empty", "a b", "", 1},
		{"identical", "a b a c", "a b a c", 0},
		{"reordered", "a b a c", "c a b a", 0},
		{"disjoint", "a b", "c d", 1},
		{"one word replaced", "x y", "x z", 1 - 1/(1+one*one)},
		// Only tf changes, all idf are 1: cos = (2·1 + 1·1)/(√5·√2).
		{"copy", "x y", "x x y", 1 - 3/(math.Sqrt(5)*math.Sqrt(2))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(words(tt.a), words(tt.b)); math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWordDistance(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       float64
	}{
		{"both empty", "", "", 0},
		{"one empty", "a", "", 1},
		{"identical", "a b c", "a b c", 0},
		{"reordered", "a b c", "c b a", 0},
		// The paper's examples: a copy and an add of two words both give 0.2.
		{"paper copy", "w1 w2 w3 w4", "w1 w2 w3 w4 w2 w3", 0.2},
		{"paper add", "w1 w2 w3 w4", "w1 w2 w3 w4 w5 w6", 0.2},
		{"multiset", "a a a b", "a a c", 1 - 2*2/7.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WordDistance(words(tt.a), words(tt.b)); math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("WordDistance = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       float64
	}{
		{"both empty", "", "", 0},
		{"all different", "a b", "c d e", 1},
		{"identical", "a b c", "a b c", 0},
		{"paper AGBAA", "A G B A A", "A B A T A", 0.2},
		{"paper copy", "w1 w2 w3 w4", "w1 w2 w3 w4 w2 w3", 0.2},
		{"paper add", "w1 w2 w3 w4", "w1 w2 w3 w4 w5 w6", 0.2},
		{"swap", "a b", "b a", 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EditDistance(words(tt.a), words(tt.b)); math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("EditDistance = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShingling(t *testing.T) {
	tests := []struct {
		name, a, b string
		k          int
		want       float64
	}{
		{"both empty", "", "", 3, 0},
		{"one empty", "a", "", 3, 1},
		{"identical", "a b c d", "a b c d", 3, 0},
		// The paper's example: one replaced word of five gives 0.75.
		{"paper replace", "w1 w2 w3 w4 w5", "w1 w2 w3 w6 w5", 3, 0.75},
		// The paper says 1 for this move, but ⟨w3 w4 w5⟩ is in both sets:
		// 1 − 1/9 with wrap-around.
		{"paper move", "w1 w2 w3 w4 w5", "w2 w1 w3 w4 w5", 3, 1 - 1.0/9},
		// Rotation keeps the wrapped shingles.
		{"rotation", "a b c d", "c d a b", 3, 0},
		// Shorter than k: the shingles wrap several times.
		{"short", "a b", "b a", 10, 0},
		{"short changed", "a b", "a c", 10, 1},
		{"duplicate shingles", "a a a a", "a a", 2, 0},
		{"k below 1 is 1", "a b c", "a b d", 0, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Shingling(words(tt.a), words(tt.b), tt.k); math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("Shingling = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestShingling_exactFallbackAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		v := 1 + r.IntN(5)
		a := randomWords(r, r.IntN(30)+1, v)
		b := mutate(r, a, v)
		if len(b) == 0 {
			continue
		}
		var in interner
		ia, ib := in.ids(a), in.ids(b)
		k := 1 + r.IntN(12)
		if got, want := shinglingIDs(ia, ib, k), shinglingExact(ia, ib, k); got != want {
			t.Fatalf("k=%d %q/%q: hashed %v, exact %v", k, a, b, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	c := Compare([]byte("a  b\tc"), []byte("a b c"), DefaultCosts())
	if c.Bytewise != 1 {
		t.Errorf("BW = %v, want 1 (bytes differ)", c.Bytewise)
	}
	if c.Old != 3 || c.New != 3 || c.IED.Distance != 0 || c.Cosine != 0 || c.WordDistance != 0 || c.EditDistance != 0 || c.Shingling != 0 {
		t.Errorf("same words, got %+v", c)
	}

	a := words("w1 w2 w2 w2 w3 w3 w4 w5 w2")
	b := words("w3 w1 w4 w2 w3 w5 w5 w6 w6 w7")
	cw := CompareWords(a, b, Costs{S: 0.4, T: 0.9})
	if cw.IED != IED(a, b, Costs{S: 0.4, T: 0.9}) {
		t.Errorf("IED = %+v, want %+v", cw.IED, IED(a, b, Costs{S: 0.4, T: 0.9}))
	}
	if cw.EditDistance != EditDistance(a, b) || cw.Cosine != Cosine(a, b) ||
		cw.WordDistance != WordDistance(a, b) || cw.Shingling != Shingling(a, b, ShingleSize) || cw.Bytewise != 1 {
		t.Errorf("baselines differ from the single functions: %+v", cw)
	}
}

func FuzzBaselines(f *testing.F) {
	f.Add("a b c", "a c b")
	f.Add("", "x")
	f.Add("w1 w2 w3 w4 w5", "w2 w1 w3 w4 w5")
	f.Fuzz(func(t *testing.T, sa, sb string) {
		a, b := words(sa), words(sb)
		if len(a) > 300 || len(b) > 300 {
			return
		}
		metrics := map[string]func(a, b []string) float64{
			"COS":  Cosine,
			"WD":   WordDistance,
			"ED":   EditDistance,
			"10SH": func(a, b []string) float64 { return Shingling(a, b, ShingleSize) },
		}
		for name, m := range metrics {
			d := m(a, b)
			if !(d >= 0 && d <= 1) {
				t.Fatalf("%s = %v outside [0,1]", name, d)
			}
			if self := m(a, a); self != 0 {
				t.Fatalf("%s(A,A) = %v", name, self)
			}
			if back := m(b, a); math.Abs(back-d) > 1e-12 {
				t.Fatalf("%s not symmetric: %v vs %v", name, d, back)
			}
		}
	})
}

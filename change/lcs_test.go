package change

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLenTable is the O(m·n) dynamic programme, used only as a test oracle.
func lcsLenTable(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkCommon fails unless ms is a common subsequence of a and b.
func checkCommon(t *testing.T, a, b []string, ms []Match) {
	t.Helper()
	for k, m := range ms {
		if m.A < 0 || m.A >= len(a) || m.B < 0 || m.B >= len(b) {
			t.Fatalf("match %d %+v out of range (%d, %d)", k, m, len(a), len(b))
		}
		if a[m.A] != b[m.B] {
			t.Fatalf("match %d %+v pairs %q with %q", k, m, a[m.A], b[m.B])
		}
		if k > 0 && (m.A <= ms[k-1].A || m.B <= ms[k-1].B) {
			t.Fatalf("matches %+v then %+v are not increasing", ms[k-1], m)
		}
	}
}

func words(s string) []string { return strings.Fields(s) }

func TestLCS(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 0},
		{"", "a", 0},
		{"a", "a", 1},
		{"a", "b", 0},
		{"a b c", "a b c", 3},
		{"A G B A A", "A B A T A", 4}, // the paper's edit-distance example
		{"w1 w2 w3 w2 w4 w1 w2", "w2 w3 w4 w2", 4},
		{"w1 w2 w2 w2 w3 w3 w4 w5 w2", "w3 w1 w4 w2 w3 w5 w5 w6 w6 w7", 4},
		{"a b c d e f", "f e d c b a", 1},
		{"x a b c y", "a b c", 3},
		{"a b c", "x a y b z c w", 3},
		{"a a a a", "a a", 2},
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			a, b := words(tt.a), words(tt.b)
			got := LCS(a, b)
			checkCommon(t, a, b, got)
			if len(got) != tt.want {
				t.Fatalf("LCS length = %d, want %d (%v)", len(got), tt.want, got)
			}
		})
	}
}

// randomWords returns n words drawn from an alphabet of size v.
func randomWords(r *rand.Rand, n, v int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("w%d", r.IntN(v))
	}
	return s
}

// mutate applies a few random clustered edits to s, drawing new words from
// an alphabet of size v.
func mutate(r *rand.Rand, s []string, v int) []string {
	out := append([]string(nil), s...)
	for range r.IntN(4) {
		pos := r.IntN(len(out) + 1)
		size := r.IntN(6)
		switch r.IntN(3) {
		case 0: // insert
			out = append(out[:pos], append(randomWords(r, size, v), out[pos:]...)...)
		case 1: // delete
			end := min(pos+size, len(out))
			out = append(out[:pos], out[end:]...)
		case 2: // move a block to the front
			end := min(pos+size, len(out))
			block := append([]string(nil), out[pos:end]...)
			rest := append(append([]string(nil), out[:pos]...), out[end:]...)
			out = append(block, rest...)
		}
	}
	return out
}

func TestLCS_matchesTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 20000 {
		v := 1 + r.IntN(8)
		if iter%5 == 0 {
			v = 50
		}
		m, n := r.IntN(30), r.IntN(30)
		if iter%7 == 0 {
			n = r.IntN(3) // very unbalanced lengths
		}
		a := randomWords(r, m, v)
		var b []string
		if iter%2 == 0 {
			b = mutate(r, a, v)
		} else {
			b = randomWords(r, n, v)
		}
		got := LCS(a, b)
		checkCommon(t, a, b, got)
		if want := lcsLenTable(a, b); len(got) != want {
			t.Fatalf("LCS(%q, %q) length %d, want %d", a, b, len(got), want)
		}
	}
}

func TestLCS_largeMatchesTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		a := randomWords(r, 300+r.IntN(300), 2+r.IntN(40))
		b := mutate(r, mutate(r, a, 60), 60)
		got := LCS(a, b)
		checkCommon(t, a, b, got)
		if want := lcsLenTable(a, b); len(got) != want {
			t.Fatalf("length %d, want %d", len(got), want)
		}
	}
}

func FuzzLCS(f *testing.F) {
	f.Add("a b c", "a c b")
	f.Add("w1 w2 w2 w2 w3 w3 w4 w5 w2", "w3 w1 w4 w2 w3 w5 w5 w6 w6 w7")
	f.Add("", "x")
	f.Add("a a a b b", "b a b a")
	f.Fuzz(func(t *testing.T, sa, sb string) {
		a, b := words(sa), words(sb)
		if len(a) > 200 || len(b) > 200 {
			return
		}
		got := LCS(a, b)
		checkCommon(t, a, b, got)
		if want := lcsLenTable(a, b); len(got) != want {
			t.Fatalf("length %d, want %d", len(got), want)
		}
	})
}

// TestMyers_compare drives the middle-snake search directly, without the
// prefix/suffix trimming and word filtering that LCS does first.
func TestMyers_compare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 20000 {
		v := 1 + r.IntN(5)
		m, n := r.IntN(25), r.IntN(25)
		if iter%3 == 0 {
			m = r.IntN(4)
		}
		a, b := make([]int32, m), make([]int32, n)
		sa, sb := make([]string, m), make([]string, n)
		for i := range a {
			a[i] = int32(r.IntN(v))
			sa[i] = fmt.Sprint(a[i])
		}
		for i := range b {
			b[i] = int32(r.IntN(v))
			sb[i] = fmt.Sprint(b[i])
		}
		d := newMyers(a, b)
		d.compare(0, m, 0, n)
		if d.failed {
			t.Fatalf("no middle snake for %v / %v", a, b)
		}
		var ms []Match
		for i, j := range d.match {
			if j >= 0 {
				ms = append(ms, Match{A: i, B: int(j)})
			}
		}
		checkCommon(t, sa, sb, ms)
		if want := lcsLenTable(sa, sb); len(ms) != want {
			t.Fatalf("%v / %v: length %d, want %d", a, b, len(ms), want)
		}
	}
}

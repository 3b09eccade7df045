package changeeval

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/scent-crawler/scent/change"
)

func TestCriterion(t *testing.T) {
	tests := []struct {
		k    Kind
		n, x int
		want float64
	}{
		{Add, 1000, 1000, 0.5},
		{Add, 1000, 3000, 0.75},
		{Copy, 1000, 1000, 0.3 * 0.5},
		{Drop, 1000, 1000, 1},
		{Drop, 1000, 250, 0.25},
		{Shrink, 1000, 500, 0.3 * 0.5},
		{Replace, 1000, 100, 0.1},
		{Move, 1000, 999, 0.6 * 0.999},
		{Move, 0, 1, 0},
		{Kind(9), 10, 1, 0},
	}
	for _, tt := range tests {
		if got := Criterion(tt.k, tt.n, tt.x, 0.3, 0.6); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Criterion(%v, %d, %d) = %v, want %v", tt.k, tt.n, tt.x, got, tt.want)
		}
	}
}

func TestKind_String(t *testing.T) {
	want := []string{"add", "drop", "copy", "shrink", "replace", "move"}
	for i, k := range Kinds {
		if k.String() != want[i] {
			t.Errorf("Kinds[%d] = %q, want %q", i, k, want[i])
		}
	}
	if got := Kind(7).String(); got != "Kind(7)" {
		t.Errorf("Kind(7) = %q", got)
	}
}

func count(s []string) map[string]int {
	c := map[string]int{}
	for _, w := range s {
		c[w]++
	}
	return c
}

// cluster returns the words of long that are not in short, when long is
// short with one contiguous run inserted, and where the run starts.
func cluster(t *testing.T, long, short []string) ([]string, int) {
	t.Helper()
	p := 0
	for p < len(short) && long[p] == short[p] {
		p++
	}
	ins := len(long) - len(short)
	if !slices.Equal(long[p+ins:], short[p:]) {
		t.Fatalf("not one contiguous insertion: %v vs %v", long, short)
	}
	return long[p : p+ins], p
}

// TestSynthesize checks every kind against the definitions of the
// criteria: what was inserted or deleted, and whether it occurs elsewhere.
func TestSynthesize(t *testing.T) {
	for _, n := range []int{4, 20, 1000} {
		for _, x := range []int{0, 1, n / 4, n / 2, n - 1} {
			for _, k := range Kinds {
				old, changed, err := Synthesize(k, n, x, 3)
				if err != nil {
					t.Fatalf("%v n=%d x=%d: %v", k, n, x, err)
				}
				if len(old) != n {
					t.Fatalf("%v n=%d x=%d: old has %d words", k, n, x, len(old))
				}
				co, cc := count(old), count(changed)
				switch k {
				case Add, Copy:
					ins, _ := cluster(t, changed, old)
					if len(ins) != x {
						t.Fatalf("%v: inserted %d words, want %d", k, len(ins), x)
					}
					for _, w := range ins {
						if present := co[w] > 0; present != (k == Copy) {
							t.Fatalf("%v: inserted %q, present before: %v", k, w, present)
						}
					}
					if k == Add && len(cc) != len(changed) {
						t.Fatalf("add: inserted words repeat")
					}
				case Drop, Shrink:
					del, _ := cluster(t, old, changed)
					if len(del) != x {
						t.Fatalf("%v: deleted %d words, want %d", k, len(del), x)
					}
					for _, w := range del {
						if stays := cc[w] > 0; stays != (k == Shrink) {
							t.Fatalf("%v: deleted %q, still present: %v", k, w, stays)
						}
					}
				case Replace:
					if len(changed) != n {
						t.Fatalf("replace changed the length")
					}
					var diff []int
					for i := range old {
						if old[i] != changed[i] {
							diff = append(diff, i)
							if co[changed[i]] > 0 || co[old[i]] != 1 {
								t.Fatalf("replace %q by %q: not a unique word by a new one", old[i], changed[i])
							}
						}
					}
					if len(diff) != x || (x > 0 && diff[x-1]-diff[0] != x-1) {
						t.Fatalf("replace changed positions %v, want %d in a row", diff, x)
					}
				case Move:
					if !maps(co, cc) {
						t.Fatalf("move changed the words")
					}
					if l := len(change.LCS(old, changed)); l != n-x {
						t.Fatalf("move of %d in %d: LCS %d, want %d", x, n, l, n-x)
					}
				}
			}
		}
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSynthesize_errors(t *testing.T) {
	tests := []struct {
		k    Kind
		n, x int
	}{
		{Add, 0, 0},
		{Add, 5, -1},
		{Drop, 5, 6},
		{Shrink, 5, 5},
		{Replace, 5, 6},
		{Move, 5, 5},
	}
	for _, tt := range tests {
		if _, _, err := Synthesize(tt.k, tt.n, tt.x, 1); !errors.Is(err, ErrSize) {
			t.Errorf("Synthesize(%v, %d, %d) = %v, want ErrSize", tt.k, tt.n, tt.x, err)
		}
	}
	if _, _, err := Synthesize(Kind(42), 5, 1, 1); err == nil {
		t.Errorf("unknown kind accepted")
	}
}

func TestSynthesize_deterministic(t *testing.T) {
	a1, b1, _ := Synthesize(Move, 100, 30, 9)
	a2, b2, _ := Synthesize(Move, 100, 30, 9)
	if !slices.Equal(a1, a2) || !slices.Equal(b1, b2) {
		t.Fatal("same seed gave different documents")
	}
}

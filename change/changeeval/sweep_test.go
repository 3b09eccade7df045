package changeeval

import (
	"math"
	"testing"

	"github.com/scent-crawler/scent/change"
)

const (
	bw = iota
	cos
	wd
	ed
	sh
	ied
)

// checkIED fails unless IED is within 0.01 of the criterion everywhere.
func checkIED(t *testing.T, points []Point) {
	t.Helper()
	for _, p := range points {
		if d := math.Abs(p.Values[ied] - p.Criterion); d > 0.01 {
			t.Errorf("%v n=%d x=%d: IED %.4f, criterion %.4f", p.Kind, p.N, p.X, p.Values[ied], p.Criterion)
		}
	}
}

func TestChangedWords(t *testing.T) {
	c := change.DefaultCosts()
	points, err := ChangedWords(1000, c, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 6*19 {
		t.Fatalf("%d points, want 6 kinds × 19 steps", len(points))
	}
	checkIED(t, points)
	for _, p := range points {
		if p.X < 50 || p.X > 950 || p.X%50 != 0 {
			t.Fatalf("changed words %d not in 5%%…95%% of 1000", p.X)
		}
		// BW is 1 for every change.
		if p.Values[bw] != 1 {
			t.Errorf("%v x=%d: BW = %v", p.Kind, p.X, p.Values[bw])
		}
		switch p.Kind {
		case Move:
			// COS and WD ignore word order.
			if p.Values[cos] != 0 || p.Values[wd] != 0 {
				t.Errorf("move x=%d: COS %v, WD %v, want 0", p.X, p.Values[cos], p.Values[wd])
			}
			// ED counts a move like a replacement: the criterion with β = 1.
			if want := float64(p.X) / 1000; math.Abs(p.Values[ed]-want) > 1e-9 {
				t.Errorf("move x=%d: ED %v, want x/n = %v", p.X, p.Values[ed], want)
			}
			// 10-SH is oversensitive to moves, above even the β = 1 line.
			if p.Values[sh] <= float64(p.X)/1000 {
				t.Errorf("move x=%d: 10SH %v not above x/n", p.X, p.Values[sh])
			}
		case Replace:
			// WD and ED are effective for replacements.
			if math.Abs(p.Values[wd]-p.Criterion) > 1e-9 || math.Abs(p.Values[ed]-p.Criterion) > 1e-9 {
				t.Errorf("replace x=%d: WD %v, ED %v, criterion %v", p.X, p.Values[wd], p.Values[ed], p.Criterion)
			}
			if p.Values[sh] <= p.Criterion {
				t.Errorf("replace x=%d: 10SH %v not above the criterion %v", p.X, p.Values[sh], p.Criterion)
			}
		case Add, Drop:
			// 10-SH is effective for adds and drops on a 1,000-word page
			// (a shingle window's worth of words above the criterion).
			if d := p.Values[sh] - p.Criterion; d < 0 || d > 0.02 {
				t.Errorf("%v x=%d: 10SH %v vs criterion %v", p.Kind, p.X, p.Values[sh], p.Criterion)
			}
			// WD and ED are less sensitive than the criterion.
			if p.Values[wd] >= p.Criterion || p.Values[ed] >= p.Criterion {
				t.Errorf("%v x=%d: WD %v, ED %v not below %v", p.Kind, p.X, p.Values[wd], p.Values[ed], p.Criterion)
			}
		case Copy, Shrink:
			// 10-SH treats copies and shrinks as adds and drops (α ≈ 1),
			// so it is above the α = 0.75 criterion; COS hardly sees them.
			if p.Values[sh] <= p.Criterion {
				t.Errorf("%v x=%d: 10SH %v not above %v", p.Kind, p.X, p.Values[sh], p.Criterion)
			}
			if p.Values[cos] > 0.1 {
				t.Errorf("%v x=%d: COS %v, want < 0.1", p.Kind, p.X, p.Values[cos])
			}
		}
	}
}

func TestChangedWords_otherCosts(t *testing.T) {
	// With other weights, s = α and t = β keep IED on the criterion (the
	// paper's example α = 0.3, β = 0.75, and t > 2s).
	for _, c := range []change.Costs{{S: 0.3, T: 0.75}, {S: 1, T: 1}, {S: 0.1, T: 0.5}} {
		points, err := ChangedWords(400, c, 5)
		if err != nil {
			t.Fatal(err)
		}
		checkIED(t, points)
	}
}

func TestDocumentSizes(t *testing.T) {
	points, err := DocumentSizes(2, 13, change.DefaultCosts(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 6*12 {
		t.Fatalf("%d points, want 6 kinds × 12 sizes", len(points))
	}
	checkIED(t, points)
	for _, p := range points {
		if p.X != p.N/4 {
			t.Fatalf("n=%d: %d changed, want a quarter", p.N, p.X)
		}
		if p.Values[bw] != 1 {
			t.Errorf("%v n=%d: BW = %v", p.Kind, p.N, p.Values[bw])
		}
		// 10-SH is far too sensitive on small documents, for every kind.
		if p.N <= 16 && p.Values[sh]-p.Criterion < 0.5 {
			t.Errorf("%v n=%d: 10SH %v only %.2f above the criterion", p.Kind, p.N, p.Values[sh], p.Values[sh]-p.Criterion)
		}
		// On large documents it comes back to the criterion for adds and drops.
		if p.N == 8192 && (p.Kind == Add || p.Kind == Drop) && p.Values[sh]-p.Criterion > 0.01 {
			t.Errorf("%v n=8192: 10SH %v vs criterion %v", p.Kind, p.Values[sh], p.Criterion)
		}
		// The other metrics do not depend on the size.
		if p.Kind == Replace && math.Abs(p.Values[ed]-0.25) > 1e-9 {
			t.Errorf("replace n=%d: ED %v, want 0.25", p.N, p.Values[ed])
		}
	}
}

func TestDocumentSizes_badRange(t *testing.T) {
	for _, r := range [][2]int{{1, 5}, {5, 4}, {2, 25}} {
		if _, err := DocumentSizes(r[0], r[1], change.DefaultCosts(), 1); err == nil {
			t.Errorf("range %v accepted", r)
		}
	}
}

func BenchmarkChangedWords(b *testing.B) {
	for b.Loop() {
		if _, err := ChangedWords(1000, change.DefaultCosts(), 1); err != nil {
			b.Fatal(err)
		}
	}
}

package changeeval

import (
	"fmt"

	"github.com/scent-crawler/scent/change"
)

// Metrics names the compared metrics, in the order of Point.Values.
var Metrics = []string{"BW", "COS", "WD", "ED", "10SH", "IED"}

// IEDIndex is the index of IED in Metrics and Point.Values.
const IEDIndex = 5

// values returns the metrics of c in Metrics order.
func values(c change.Comparison) [6]float64 {
	return [6]float64{c.Bytewise, c.Cosine, c.WordDistance, c.EditDistance, c.Shingling, c.IED.Distance}
}

// Point is one synthetic measurement: x of n words changed by one kind.
type Point struct {
	Kind Kind
	N, X int
	// Criterion is the paper's change degree for this change.
	Criterion float64
	// Values are the metrics, in Metrics order.
	Values [6]float64
	// Ops are IED's operation counts.
	Ops change.Ops
}

// measure synthesizes one change and measures it with every metric. The
// criterion uses α = c.S and β = c.T.
func measure(k Kind, n, x int, c change.Costs, seed uint64) (Point, error) {
	old, changed, err := Synthesize(k, n, x, seed)
	if err != nil {
		return Point{}, err
	}
	cmp := change.CompareWords(old, changed, c)
	return Point{
		Kind:      k,
		N:         n,
		X:         x,
		Criterion: Criterion(k, n, x, c.S, c.T),
		Values:    values(cmp),
		Ops:       cmp.IED.Ops,
	}, nil
}

// ChangedWords reproduces the paper's Fig. 7: an n-word document (the
// paper: 1,000) with 5 %, 10 %, …, 95 % of its words changed in one
// cluster, for each kind. IED uses c, and the criteria α = c.S, β = c.T.
func ChangedWords(n int, c change.Costs, seed uint64) ([]Point, error) {
	var out []Point
	for _, k := range Kinds {
		for pct := 5; pct <= 95; pct += 5 {
			x := n * pct / 100
			p, err := measure(k, n, x, c, seed)
			if err != nil {
				return nil, fmt.Errorf("fig. 7 %v %d%%: %w", k, pct, err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// DocumentSizes reproduces the paper's Fig. 8: documents of 2^minExp …
// 2^maxExp words (the paper: 2² … 2¹³) with a quarter of their words
// changed in one cluster, for each kind.
func DocumentSizes(minExp, maxExp int, c change.Costs, seed uint64) ([]Point, error) {
	if minExp < 2 || maxExp < minExp || maxExp > 24 {
		return nil, fmt.Errorf("fig. 8 sizes 2^%d…2^%d: exponents must satisfy 2 ≤ min ≤ max ≤ 24", minExp, maxExp)
	}
	var out []Point
	for _, k := range Kinds {
		for e := minExp; e <= maxExp; e++ {
			n := 1 << e
			p, err := measure(k, n, n/4, c, seed)
			if err != nil {
				return nil, fmt.Errorf("fig. 8 %v n=%d: %w", k, n, err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

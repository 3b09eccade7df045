package changeeval

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/scent-crawler/scent/change"
)

// version is one line of a change history file.
type version struct {
	URL         string    `json:"url"`
	Time        time.Time `json:"time"`
	Deleted     bool      `json:"deleted"`
	Text        string    `json:"text"`
	TextOmitted *int      `json:"text_omitted"`
}

// RealResult is the paper's Fig. 5 on a real change history: the mean
// change degree of consecutive versions, per metric.
type RealResult struct {
	// Versions is the number of lines read, Pages the number of distinct URLs.
	Versions, Pages int
	// Pairs is the number of consecutive version pairs that both carry
	// text; Measured is how many of them were measured (all, or an evenly
	// spread subset when bounded).
	Pairs, Measured int
	// SkippedOmitted and SkippedDeleted count consecutive pairs left out
	// because one side's text was omitted (too large) or the page deleted.
	SkippedOmitted, SkippedDeleted int
	// Mean is the mean change degree per metric, in Metrics order.
	Mean [6]float64
	// Values holds every measured pair's metrics, in Metrics order.
	Values [][6]float64
	// MeanOps is the mean IED operation count per pair.
	MeanOps MeanOps
	// Duration is the time spent measuring.
	Duration time.Duration
}

// readHistory reads a change history (JSON lines, gzip-compressed if it
// starts with the gzip magic) and returns its versions grouped by URL, each
// group ordered by time, groups ordered by URL.
func readHistory(r io.Reader) ([][]version, int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, 0, fmt.Errorf("read change history: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	dec := json.NewDecoder(src)
	byURL := map[string][]version{}
	lines := 0
	for {
		var v version
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, lines, fmt.Errorf("read change history, record %d: %w", lines+1, err)
		}
		lines++
		byURL[v.URL] = append(byURL[v.URL], v)
	}
	urls := make([]string, 0, len(byURL))
	for u := range byURL {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	groups := make([][]version, 0, len(urls))
	for _, u := range urls {
		g := byURL[u]
		slices.SortStableFunc(g, func(a, b version) int { return a.Time.Compare(b.Time) })
		groups = append(groups, g)
	}
	return groups, lines, nil
}

// MeanOps are mean IED operation counts.
type MeanOps struct {
	Add     float64 `json:"add"`
	Copy    float64 `json:"copy"`
	Drop    float64 `json:"drop"`
	Shrink  float64 `json:"shrink"`
	Replace float64 `json:"replace"`
	Move    float64 `json:"move"`
}

// RealChanges measures every pair of consecutive versions of each page in
// the history read from r, words split on white space, and averages each
// metric (the paper's Fig. 5). Pairs where either side is deleted or has
// its text omitted are skipped and counted. maxPairs > 0 bounds the work to
// that many pairs spread evenly over all of them. Progress lines go to
// progress if it is not nil.
func RealChanges(ctx context.Context, r io.Reader, c change.Costs, maxPairs int, progress io.Writer) (*RealResult, error) {
	groups, lines, err := readHistory(r)
	if err != nil {
		return nil, err
	}
	res := &RealResult{Versions: lines, Pages: len(groups)}
	type pair struct{ old, new *version }
	var pairs []pair
	for _, g := range groups {
		for i := 1; i < len(g); i++ {
			a, b := &g[i-1], &g[i]
			switch {
			case a.TextOmitted != nil || b.TextOmitted != nil:
				res.SkippedOmitted++
			case a.Deleted || b.Deleted:
				res.SkippedDeleted++
			default:
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	res.Pairs = len(pairs)
	if maxPairs > 0 && maxPairs < len(pairs) {
		picked := make([]pair, maxPairs)
		for i := range picked {
			picked[i] = pairs[i*len(pairs)/maxPairs]
		}
		pairs = picked
	}

	start := time.Now()
	last := start
	var ops change.Ops
	for i, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("measure real changes after %d pairs: %w", i, err)
		}
		cmp := change.Compare([]byte(p.old.Text), []byte(p.new.Text), c)
		v := values(cmp)
		res.Values = append(res.Values, v)
		for j := range v {
			res.Mean[j] += v[j]
		}
		o := cmp.IED.Ops
		ops.Add += o.Add
		ops.Copy += o.Copy
		ops.Drop += o.Drop
		ops.Shrink += o.Shrink
		ops.Replace += o.Replace
		ops.Move += o.Move
		if progress != nil && (time.Since(last) > 5*time.Second || i+1 == len(pairs)) {
			last = time.Now()
			fmt.Fprintf(progress, "fig. 5: %d/%d pairs measured, %s\n", i+1, len(pairs), time.Since(start).Round(time.Millisecond))
		}
	}
	res.Measured = len(pairs)
	if res.Measured > 0 {
		n := float64(res.Measured)
		for j := range res.Mean {
			res.Mean[j] /= n
		}
		res.MeanOps = MeanOps{
			Add: float64(ops.Add) / n, Copy: float64(ops.Copy) / n, Drop: float64(ops.Drop) / n,
			Shrink: float64(ops.Shrink) / n, Replace: float64(ops.Replace) / n, Move: float64(ops.Move) / n,
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

package change

import (
	"context"
	"fmt"
	"strings"
)

// Comparison holds IED and every baseline metric for one pair of versions.
type Comparison struct {
	// Old and New are the word counts m and n.
	Old int `json:"old_words"`
	New int `json:"new_words"`
	// IED is the Improved Edit Distance with the costs given to Compare.
	IED Result `json:"ied"`
	// Bytewise is BW on the raw texts.
	Bytewise float64 `json:"bw"`
	// Cosine is COS, see the Cosine function for the weighting.
	Cosine float64 `json:"cos"`
	// WordDistance is WD.
	WordDistance float64 `json:"wd"`
	// EditDistance is ED.
	EditDistance float64 `json:"ed"`
	// Shingling is k-SH with k = ShingleSize.
	Shingling float64 `json:"sh10"`
	// Approximate is set when the two versions differ so much that the
	// LCS search hit its cost limit (see ExactCost): IED and ED then rest
	// on a common subsequence that may be shorter than the longest, and
	// may overstate the change.
	Approximate bool `json:"approximate,omitempty"`
}

// Words splits text into words on white space, as every metric of this
// package expects its input.
func Words(text string) []string { return strings.Fields(text) }

// Compare measures the change from oldText to newText with IED (costs c)
// and the five baselines. BW compares the raw bytes; the other metrics
// compare the words of Words. The word sequences are interned and their LCS
// computed once for IED and ED.
func Compare(oldText, newText []byte, c Costs) Comparison {
	cmp, _ := CompareContext(context.Background(), oldText, newText, c)
	return cmp
}

// CompareContext is Compare that gives up when ctx ends, with ctx's
// error: the LCS search checks it between its steps, so a cancellation
// takes effect within milliseconds whatever the inputs.
func CompareContext(ctx context.Context, oldText, newText []byte, c Costs) (Comparison, error) {
	if err := ctx.Err(); err != nil {
		return Comparison{}, fmt.Errorf("compare: %w", err)
	}
	a, b := Words(string(oldText)), Words(string(newText))
	return compareWords(ctx, a, b, Bytewise(oldText, newText), c)
}

// CompareWords is Compare for texts already split into words; BW compares
// the words joined by single spaces.
func CompareWords(a, b []string, c Costs) Comparison {
	bw := Bytewise([]byte(strings.Join(a, " ")), []byte(strings.Join(b, " ")))
	cmp, _ := compareWords(context.Background(), a, b, bw, c)
	return cmp
}

func compareWords(ctx context.Context, a, b []string, bw float64, c Costs) (Comparison, error) {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	vocab := in.size()
	mA, approx, err := lcsIDs(ctx, ia, ib, vocab)
	if err != nil {
		return Comparison{}, fmt.Errorf("compare: %w", err)
	}
	return Comparison{
		Old:          len(a),
		New:          len(b),
		IED:          iedIDs(ia, ib, mA, vocab, c),
		Bytewise:     bw,
		Cosine:       cosineIDs(ia, ib, vocab),
		WordDistance: wordDistanceIDs(ia, ib, vocab),
		EditDistance: editDistance(len(a), len(b), countMatched(mA)),
		Shingling:    shinglingIDs(ia, ib, ShingleSize),
		Approximate:  approx,
	}, nil
}

package change

import "strings"

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
}

// Words splits text into words on white space, as every metric of this
// package expects its input.
func Words(text string) []string { return strings.Fields(text) }

// Compare measures the change from oldText to newText with IED (costs c)
// and the five baselines. BW compares the raw bytes; the other metrics
// compare the words of Words. The word sequences are interned and their LCS
// computed once for IED and ED.
func Compare(oldText, newText []byte, c Costs) Comparison {
	return compareWords(Words(string(oldText)), Words(string(newText)), Bytewise(oldText, newText), c)
}

// CompareWords is Compare for texts already split into words; BW compares
// the words joined by single spaces.
func CompareWords(a, b []string, c Costs) Comparison {
	bw := Bytewise([]byte(strings.Join(a, " ")), []byte(strings.Join(b, " ")))
	return compareWords(a, b, bw, c)
}

func compareWords(a, b []string, bw float64, c Costs) Comparison {
	var in interner
	ia, ib := in.ids(a), in.ids(b)
	vocab := in.size()
	mA := lcsIDs(ia, ib, vocab)
	return Comparison{
		Old:          len(a),
		New:          len(b),
		IED:          iedIDs(ia, ib, mA, vocab, c),
		Bytewise:     bw,
		Cosine:       cosineIDs(ia, ib, vocab),
		WordDistance: wordDistanceIDs(ia, ib, vocab),
		EditDistance: editDistance(len(a), len(b), countMatched(mA)),
		Shingling:    shinglingIDs(ia, ib, ShingleSize),
	}
}

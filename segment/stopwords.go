package segment

// stopWords are common English function words, as lower-case tokens of
// the tokenizer (which splits "don't" into "do" and "n't").
var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
		"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
		"by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
		"from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
		"him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
		"just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
		"once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
		"she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
		"themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
		"while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
		"yourselves", "'s", "'ll", "'re", "'m", "n't", "'ve", "'d",
	} {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopWord reports whether the lower-case token w is an English stop
// word dropped by Options.StopWords.
func IsStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// dropStopWords removes the stop words from toks[from:] in place and
// returns the shortened slice.
func dropStopWords(toks []string, from int) []string {
	out := toks[:from]
	for _, w := range toks[from:] {
		if !IsStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v2"
)

// Tokenize appends to dst the word tokens of text and returns the extended
// slice. The tokens are exactly those of ProseTokenize(text): prose's
// tokenizer splits text at white space and then peels punctuation prefixes,
// suffixes and English contractions off each piece; every token is then
// lower-cased, and tokens without any letter or digit are dropped.
//
// Tokenize reaches the same result in linear time, without regular
// expressions or maps, and without allocating per token: tokens are
// substrings of text or of one lower-cased copy of it (unless the text has
// letters whose lower-case form has another UTF-8 length, such as U+0130
// 'İ'; then each token is lower-cased on its own).
//
// The only known divergences from prose: a piece of more than 256 bytes
// without white space that contains an apostrophe together with invalid
// UTF-8 or such a letter may split differently (shorter pieces of that kind
// are handed to prose itself); and where prose panics, which it does on
// some such pieces, ProseTokenize returns nil while Tokenize skips only
// that piece.
func Tokenize(text string, dst []string) []string {
	t := newTokenizer(sanitize(text), dst, 0)
	t.run(0, len(t.clean))
	return t.dst
}

// ProseTokenize is the reference tokenizer: the tokens of
// github.com/jdkato/prose/v2 for text, lower-cased, without those that have
// no letter or digit. It returns nil if prose fails on text.
func ProseTokenize(text string) []string {
	raw, ok := proseRaw(text)
	if !ok {
		return nil
	}
	var out []string
	for _, tok := range raw {
		if l := strings.ToLower(tok); keepToken(l) {
			out = append(out, l)
		}
	}
	return out
}

// proseRaw returns prose's tokens for text as they are, and false if prose
// panicked (it slices a piece at an offset found in its lower-cased copy,
// which is out of range when lower-casing changes byte lengths).
func proseRaw(text string) (toks []string, ok bool) {
	defer func() {
		if recover() != nil {
			toks, ok = nil, false
		}
	}()
	doc, err := prose.NewDocument(text,
		prose.WithSegmentation(false), prose.WithTagging(false), prose.WithExtraction(false))
	if err != nil {
		return nil, false
	}
	for _, tok := range doc.Tokens() {
		toks = append(toks, tok.Text)
	}
	return toks, true
}

// keepToken reports whether a token has at least one letter or digit;
// tokens of punctuation and symbols only are dropped.
func keepToken(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
		i += size
	}
	return false
}

// asciiSpace marks the ASCII bytes for which unicode.IsSpace is true.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// sanitize folds typographic quotes to ASCII and replaces the literal text
// "&rsquo;" with an apostrophe, as prose does before splitting. It returns s
// itself when there is nothing to replace.
func sanitize(s string) string {
	i, n := nextQuote(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i >= 0 {
		b.WriteString(s[last:i])
		if n == 3 && (s[i+2] == 0x9c || s[i+2] == 0x9d) {
			b.WriteByte('"')
		} else {
			b.WriteByte('\'')
		}
		last = i + n
		i, n = nextQuote(s, last)
	}
	b.WriteString(s[last:])
	return b.String()
}

// nextQuote returns the offset and length of the first replaceable sequence
// at or after from: U+2018, U+2019, U+201C, U+201D or "&rsquo;".
func nextQuote(s string, from int) (int, int) {
	for j := from; j < len(s); j++ {
		switch s[j] {
		case 0xe2:
			if j+3 <= len(s) && s[j+1] == 0x80 {
				switch s[j+2] {
				case 0x98, 0x99, 0x9c, 0x9d:
					return j, 3
				}
			}
		case '&':
			if strings.HasPrefix(s[j:], "&rsquo;") {
				return j, 7
			}
		}
	}
	return -1, 0
}

// lowerUniform returns s lower-cased and true when s is valid UTF-8 and
// every rune keeps its encoded length when lower-cased, so that the
// lower-cased form of any substring of s is the substring of the result at
// the same offsets. Otherwise it returns "" and false.
func lowerUniform(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		// Copy the run of bytes that stay as they are.
		j := i
		for j < len(s) {
			if c := s[j]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
				break
			}
			j++
		}
		if changed {
			b.WriteString(s[i:j])
		}
		if j == len(s) {
			break
		}
		i = j
		c := s[i]
		size := 1
		var l rune
		if c < utf8.RuneSelf {
			l = rune(c + 'a' - 'A')
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			if l = unicode.ToLower(r); l == r {
				if changed {
					b.WriteString(s[i : i+size])
				}
				i += size
				continue
			}
			if utf8.RuneLen(l) != size {
				return "", false
			}
		}
		if !changed {
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
		b.WriteRune(l)
		i += size
	}
	if !changed {
		return s, true
	}
	return b.String(), true
}

// maxProseSpan is the longest irregular piece (see Tokenize) handed to
// prose; prose is quadratic in the length of a piece.
const maxProseSpan = 256

// tokenizer holds one sanitized text and appends its tokens to dst.
type tokenizer struct {
	clean   string // sanitized text
	lower   string // clean lower-cased at the same offsets, when uniform
	uniform bool
	dst     []string
	limit   int // stop once len(dst) reaches limit; 0 means no limit
}

func newTokenizer(clean string, dst []string, limit int) *tokenizer {
	t := &tokenizer{clean: clean, dst: dst, limit: limit}
	t.lower, t.uniform = lowerUniform(clean)
	return t
}

// full reports whether the token limit has been reached.
func (t *tokenizer) full() bool { return t.limit > 0 && len(t.dst) >= t.limit }

// run tokenizes clean[from:to]; from and to must not fall inside a piece of
// non-space text, so that runs over adjacent ranges give the tokens of the
// whole. It reports whether the limit stopped it.
func (t *tokenizer) run(from, to int) bool {
	s := t.clean
	i := from
	for i < to {
		if t.full() {
			return true
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
			i += size
			continue
		}
		start := i
		for i < to {
			c := s[i]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += size
		}
		t.span(start, i)
	}
	return t.full()
}

// emit appends the lower-cased clean[a:b] when it has a letter or digit.
func (t *tokenizer) emit(a, b int) {
	if a >= b || t.full() {
		return
	}
	var tok string
	if t.uniform {
		tok = t.lower[a:b]
	} else {
		tok = strings.ToLower(t.clean[a:b])
	}
	if keepToken(tok) {
		t.dst = append(t.dst, tok)
	}
}

// span splits one piece of non-space text clean[a:b] the way prose does.
//
// Prose repeatedly looks at the rest of the piece: a special token
// (emoticon, abbreviation such as "U.S." or "Mr.") is taken whole; otherwise
// a leading $ ( " [ is split off; otherwise the text before the first found
// of 'll 's 're 'm (searched in that order, in lower case), or else before
// n't, becomes a token and the rest continues; otherwise a trailing
// , ) " ] ! ; . ? : ' is split off; otherwise the rest is a token. It stops
// when a step changes nothing. The characters split off one by one never
// survive the filter, so only the other tokens are emitted.
func (t *tokenizer) span(a, b int) {
	s := t.clean
	apos := strings.IndexByte(s[a:b], '\'')
	if apos >= 0 && !t.uniform && b-a <= maxProseSpan && irregular(s[a:b]) {
		t.prose(s[a:b])
		return
	}
	sc := subCache{end: b}
	if apos < 0 {
		sc.none = true
	}
	runFrom, run := -1, 0
	for {
		n := b - a
		if t.special(a, b, &runFrom, &run) {
			t.emit(a, b)
			return
		}
		c := s[a]
		if n > 1 && (c == '$' || c == '(' || c == '"' || c == '[') {
			a++
			continue
		}
		if idx := sc.index(s, a, b); idx >= 0 {
			t.emit(a, a+idx)
			if idx == 0 {
				return
			}
			a += idx
			continue
		}
		if n > 1 {
			switch s[b-1] {
			case ',', ')', '"', ']', '!', ';', '.', '?', ':', '\'':
				b--
				continue
			}
		}
		t.emit(a, b)
		return
	}
}

// prose tokenizes an irregular piece with prose itself.
func (t *tokenizer) prose(piece string) {
	raw, _ := proseRaw(piece)
	for _, tok := range raw {
		if t.full() {
			return
		}
		if l := strings.ToLower(tok); keepToken(l) {
			t.dst = append(t.dst, l)
		}
	}
}

// irregular reports whether s is invalid UTF-8 or has a rune whose
// lower-case form has a different encoded length; in such a piece prose's
// offsets into its lower-cased copy do not match the piece.
func irregular(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) != size {
			return true
		}
		i += size
	}
	return false
}

// special reports whether clean[a:b] is one of prose's special tokens that
// survive the filter with a different result than ordinary splitting would
// give. Prose knows about 60 emoticons; those without a letter or digit are
// dropped however they are split, and most others are never split anyway,
// which leaves the five below. Its abbreviation pattern is
// ^(?:[A-Za-z]\.){2,}$|^[A-Z][a-z]{1,2}\.$, matched here by hand; runFrom
// and run cache the length of the letter-dot alternation starting at
// runFrom, so that repeated checks of one piece stay linear.
func (t *tokenizer) special(a, b int, runFrom, run *int) bool {
	n := b - a
	if n < 3 {
		return false
	}
	s := t.clean
	switch s[a] {
	case '(':
		if w := s[a:b]; w == "(-8" || w == "(o:" || w == "(ಠ_ಠ)" {
			return true
		}
	case '8':
		if s[a:b] == "8-)" {
			return true
		}
	case ':':
		if s[a:b] == ":o)" {
			return true
		}
	}
	if s[b-1] != '.' {
		return false
	}
	c := s[a]
	if (n == 3 || n == 4) && 'A' <= c && c <= 'Z' {
		lowerRun := true
		for i := a + 1; i < b-1; i++ {
			if s[i] < 'a' || s[i] > 'z' {
				lowerRun = false
				break
			}
		}
		if lowerRun {
			return true
		}
	}
	if n < 4 || n%2 != 0 || s[a+1] != '.' {
		return false
	}
	if *runFrom != a {
		k := 0
		for a+k < len(s) {
			d := s[a+k]
			if k%2 == 0 && !('a' <= d && d <= 'z' || 'A' <= d && d <= 'Z') || k%2 == 1 && d != '.' {
				break
			}
			k++
		}
		*runFrom, *run = a, k
	}
	return *run >= n
}

// subCache finds prose's contraction markers in one piece. pos[k] is the
// leftmost occurrence at or after the position it was searched from (so it
// stays right while the piece only loses characters at its front up to
// pos[k]), or -1 when there is none before end; the piece only shrinks, so
// each search resumes where the last one stopped.
type subCache struct {
	end   int
	none  bool // the piece has no apostrophe
	pos   [5]int
	valid [5]bool
}

// contractions are prose's markers in the order it tries them; the last one
// is tried only when none of the others is found.
var contractions = [5]string{"'ll", "'s", "'re", "'m", "n't"}

// index returns the offset in s[a:b] at which prose splits a contraction,
// or -1.
func (c *subCache) index(s string, a, b int) int {
	if c.none {
		return -1
	}
	n := b - a
	for k := 0; k < 4; k++ {
		m := len(contractions[k])
		if p := c.find(s, k, a); p >= 0 && p+m <= b && n > m {
			return p - a
		}
	}
	if p := c.find(s, 4, a); p >= 0 && p+3 <= b && n > 3 {
		return p - a
	}
	return -1
}

// find returns the leftmost occurrence of contractions[k] in s[a:c.end],
// compared case-insensitively for ASCII letters, or -1.
func (c *subCache) find(s string, k, a int) int {
	if c.valid[k] && (c.pos[k] < 0 || c.pos[k] >= a) {
		return c.pos[k]
	}
	c.valid[k] = true
	c.pos[k] = search(s, k, a, c.end)
	return c.pos[k]
}

// search scans s[from:end] for contractions[k].
func search(s string, k, from, end int) int {
	q := from
	if k == 4 {
		q++ // the apostrophe of n't is its second byte
	}
	for q < end {
		j := strings.IndexByte(s[q:end], '\'')
		if j < 0 {
			return -1
		}
		q += j
		switch k {
		case 0:
			if q+2 < end && s[q+1]|0x20 == 'l' && s[q+2]|0x20 == 'l' {
				return q
			}
		case 1:
			if q+1 < end && s[q+1]|0x20 == 's' {
				return q
			}
		case 2:
			if q+2 < end && s[q+1]|0x20 == 'r' && s[q+2]|0x20 == 'e' {
				return q
			}
		case 3:
			if q+1 < end && s[q+1]|0x20 == 'm' {
				return q
			}
		case 4:
			if q-1 >= from && q+1 < end && s[q-1]|0x20 == 'n' && s[q+1]|0x20 == 't' {
				return q - 1
			}
		}
		q++
	}
	return -1
}

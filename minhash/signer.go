package minhash

import (
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// Signer turns texts into signatures for one set of Params. It is immutable
// after NewSigner and safe for concurrent use.
type Signer struct {
	params Params
	w      int
	a, b   [NumPermutations]uint64
	// out[k][v] is v(x)·x^(8k)·x^(64(w−1)) mod P: the contribution of the
	// oldest word to the fingerprint of the last w words, cancelled by
	// exclusive or when the window moves on.
	out [8][256]uint64
}

// NewSigner returns a Signer for p, after checking it with Params.Validate.
func NewSigner(p Params) (*Signer, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("new signer: %w", err)
	}
	p = p.resolved()
	s := &Signer{params: p, w: p.ShingleWords}
	s.a, s.b = coefficients(p.Seed)
	fillShiftTables(&s.out, 64*(s.w-1))
	return s, nil
}

// Params returns the parameters of s with defaults filled in.
func (s *Signer) Params() Params {
	return s.params
}

// Markers that keep the messages fingerprinted for features of different
// kinds apart.
const (
	markWord  = 0x01
	markGroup = 'G'
	markExact = 'E'
)

// asciiFold maps an ASCII byte to itself lower-cased when it belongs to a
// word (letters and digits) and to 0 when it separates words.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// isWordRune reports whether r belongs to a word: letters, digits and
// combining marks belong, everything else (spaces, punctuation, symbols,
// control characters, invalid UTF-8) separates words.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiFold[r] != 0
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// Sign returns the signature of text, the core text of a page.
//
// The text is split into words (maximal runs of letters, digits and
// combining marks, lower-cased; everything else separates words), each word
// gets a Rabin fingerprint, and every run of w consecutive words (a
// shingle) gets the Rabin fingerprint of its words' fingerprints. Each of
// the 84 permutations keeps its minimum over the shingles; the minima,
// in order, form six groups of 14 whose fingerprints are the features.
//
// A text with no words has the empty signature; a text with fewer than w
// words has an exact signature that agrees only with texts of the same
// words. Sign reads the text once, keeps no per-shingle state and allocates
// nothing, so its cost is linear in the length of text for any input.
func (s *Signer) Sign(text string) Signature {
	var (
		mins     [NumPermutations]uint64
		ring     [MaxShingleWords]uint64 // the fingerprints of the last w words
		pos      int                     // where the next word goes in ring
		words    int                     // words seen
		shingle  uint64                  // fingerprint of the last min(words, w) words
		last     uint64                  // the previous shingle fingerprint
		f        uint64                  // fingerprint of the word being read
		inWord   bool
		utf8Buf  [utf8.UTFMax]byte
		w        = s.w
		shingled = false
	)
	for i := range mins {
		mins[i] = Prime
	}
	endWord := func() {
		if w <= words {
			shingle ^= lookup8(&s.out, ring[pos])
		}
		shingle = mulX64(shingle) ^ f
		ring[pos] = f
		pos++
		if pos == w {
			pos = 0
		}
		words++
		if w <= words && (!shingled || shingle != last) {
			s.permute(&mins, shingle)
			last, shingled = shingle, true
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if l := asciiFold[c]; l != 0 {
				if !inWord {
					f, inWord = markWord, true
				}
				f = (f<<8 | uint64(l)) ^ topTable[f>>56]
				continue
			}
			if inWord {
				endWord()
				inWord = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if isWordRune(r) {
			if !inWord {
				f, inWord = markWord, true
			}
			n := utf8.EncodeRune(utf8Buf[:], unicode.ToLower(r))
			f = fpBytes(f, utf8Buf[:n])
			continue
		}
		if inWord {
			endWord()
			inWord = false
		}
	}
	if inWord {
		endWord()
	}

	var sig Signature
	switch {
	case words == 0:
		return sig
	case words < w:
		// shingle is the fingerprint of the whole word sequence.
		sig.Kind = KindExact
		for k := range sig.Features {
			g := fpByte(fpByte(0, markExact), byte(k))
			sig.Features[k] = fpUint64(g, shingle)
		}
		return sig
	}
	sig.Kind = KindShingled
	sig.Mins = mins
	sig.Features = features(&mins)
	return sig
}

// features fingerprints the minima in groups of GroupSize.
func features(mins *[NumPermutations]uint64) [NumFeatures]uint64 {
	var feats [NumFeatures]uint64
	for g := range feats {
		h := fpByte(fpByte(0, markGroup), byte(g))
		for _, m := range mins[g*GroupSize : (g+1)*GroupSize] {
			h = fpUint64(h, m)
		}
		feats[g] = h
	}
	return feats
}

// permute lowers each mins[i] to π_i(fp) = (a_i·x + b_i) mod p where
// x = fp mod p.
func (s *Signer) permute(mins *[NumPermutations]uint64, fp uint64) {
	x := fp&Prime + fp>>61
	if x >= Prime {
		x -= Prime
	}
	a, b := &s.a, &s.b
	for i := range mins {
		v := mulAddMod(a[i], x, b[i])
		if v < mins[i] {
			mins[i] = v
		}
	}
}

// mulAddMod returns (a·x + b) mod p for a, x, b below p = 2^61 − 1, using
// 2^61 ≡ 1 (mod p).
func mulAddMod(a, x, b uint64) uint64 {
	hi, lo := bits.Mul64(a, x) // a·x < 2^122
	v := lo&Prime + (lo>>61 | hi<<3) + b
	v = v&Prime + v>>61
	if v >= Prime {
		v -= Prime
	}
	return v
}

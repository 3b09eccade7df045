package minhash

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

func newTestSigner(t testing.TB, p Params) *Signer {
	t.Helper()
	s, err := NewSigner(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// refWords is the tokenizer of Sign written the obvious way.
func refWords(text string) []string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
	for i, w := range words {
		words[i] = strings.Map(unicode.ToLower, w)
	}
	return words
}

// refSign computes a signature from its definition, with none of Sign's
// shortcuts: an explicit set of shingles, fingerprints by long division and
// permutations in big.Int arithmetic.
func refSign(p Params, text string) Signature {
	p = p.resolved()
	words := refWords(text)
	var sig Signature
	if len(words) == 0 {
		return sig
	}
	wordFP := make([]byte, 0, 8*len(words))
	for _, w := range words {
		wordFP = binary.BigEndian.AppendUint64(wordFP, refFingerprint(0, append([]byte{markWord}, w...)))
	}
	if len(words) < p.ShingleWords {
		sig.Kind = KindExact
		all := refFingerprint(0, wordFP)
		for k := range sig.Features {
			sig.Features[k] = refFingerprint(0, binary.BigEndian.AppendUint64([]byte{markExact, byte(k)}, all))
		}
		return sig
	}
	shingles := map[uint64]bool{}
	for i := 0; i+p.ShingleWords <= len(words); i++ {
		shingles[refFingerprint(0, wordFP[8*i:8*(i+p.ShingleWords)])] = true
	}
	a, b := coefficients(p.Seed)
	prime := new(big.Int).SetUint64(Prime)
	sig.Kind = KindShingled
	for i := range sig.Mins {
		sig.Mins[i] = Prime
		for s := range shingles {
			v := new(big.Int).SetUint64(s)
			v.Mul(v, new(big.Int).SetUint64(a[i])).Add(v, new(big.Int).SetUint64(b[i])).Mod(v, prime)
			sig.Mins[i] = min(sig.Mins[i], v.Uint64())
		}
	}
	for g := range sig.Features {
		msg := []byte{markGroup, byte(g)}
		for _, m := range sig.Mins[g*GroupSize : (g+1)*GroupSize] {
			msg = binary.BigEndian.AppendUint64(msg, m)
		}
		sig.Features[g] = refFingerprint(0, msg)
	}
	return sig
}

func TestSigner_Sign_reference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	texts := []string{
		"", "one", "Two words.", "a b c d e f g", "a b c d e f g h",
		"a b c d e f g h i j k l m n o p q r s t u v w x y z",
		"the the the the the the the the the the the the",
		"Ünïcödé wörds — and 日本語のテキスト, ÉCOLE école, İstanbul ΣΊΣΥΦΟΣ",
		"x\xffy\x00z \xe2\x82 broken utf8 a b c d e f g h i",
		"combining e\u0301 marks e\u0301 and digits 42 3.14 1,000 a b c d",
	}
	for range 20 {
		texts = append(texts, randomText(r, r.IntN(60)))
	}
	for _, p := range []Params{DefaultParams(), {ShingleWords: 1, Seed: 1}, {ShingleWords: 3, Seed: 99}} {
		s := newTestSigner(t, p)
		for _, text := range texts {
			if got, want := s.Sign(text), refSign(p, text); got != want {
				t.Errorf("w=%d: Sign(%q) = %+v, want %+v", p.ShingleWords, text, got, want)
			}
		}
	}
}

// randomText returns n words from a small vocabulary with random
// punctuation and case, so shingles repeat.
func randomText(r *rand.Rand, n int) string {
	vocab := []string{"the", "crawler", "Page", "LINK", "a", "of", "to", "web", "topic", "near", "duplicate", "min", "hash", "é", "ß"}
	seps := []string{" ", "  ", ", ", ". ", "\n", "\t", " - ", "!"}
	var b strings.Builder
	for range n {
		b.WriteString(vocab[r.IntN(len(vocab))])
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}

func TestSigner_Sign(t *testing.T) {
	s := newTestSigner(t, DefaultParams())
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa ", 3)
	tests := []struct {
		name     string
		text     string
		kind     Kind
		sameAs   string // a text with the same signature
		differs  string // a text with a different signature
		agreeMin int    // with differs: at least this many features agree
	}{
		{name: "empty", text: "", kind: KindEmpty, sameAs: " \t\n"},
		{name: "punctuation only", text: "... --- !!!", kind: KindEmpty, sameAs: ""},
		{name: "binary garbage", text: "\x00\x01\xff\xfe\x80\x80", kind: KindEmpty, sameAs: ""},
		{name: "one word", text: "Hello", kind: KindExact, sameAs: "hello!", differs: "hello hello"},
		{name: "short", text: "Hello, World", kind: KindExact, sameAs: "  hello\nWORLD. ", differs: "world hello"},
		{name: "seven words", text: "a b c d e f g", kind: KindExact, sameAs: "A-B-C-D-E-F-G", differs: "a b c d e f h"},
		{name: "eight words", text: "a b c d e f g h", kind: KindShingled, sameAs: "a, b, c, d, e, f, g, h.", differs: "a b c d e f g i"},
		{name: "case and spacing", text: long, kind: KindShingled, sameAs: strings.ToUpper(long) + "\n\n", differs: long + "omega"},
		{name: "repeated word", text: strings.Repeat("spam ", 1000), kind: KindShingled, sameAs: strings.Repeat("spam ", 8), differs: strings.Repeat("spam ", 7)},
		{name: "unicode", text: "Überall 東京 naïve ÇA café e\u0301 Ελληνικά слова δοκιμή αβγ", kind: KindShingled, sameAs: "überall 東京 NAÏVE ça CAFÉ E\u0301 ελληνικά СЛОВА ΔΟΚΙΜΉ ΑΒΓ"},
		{name: "shingle order", text: "one two three four five six seven eight nine", kind: KindShingled, differs: "two three four five six seven eight nine one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := s.Sign(tt.text)
			if sig.Kind != tt.kind {
				t.Fatalf("kind %v, want %v", sig.Kind, tt.kind)
			}
			if err := sig.Validate(); err != nil {
				t.Fatalf("invalid signature: %v", err)
			}
			if sig != s.Sign(tt.text) {
				t.Fatal("Sign is not deterministic")
			}
			if tt.sameAs != "" || tt.kind == KindEmpty {
				if other := s.Sign(tt.sameAs); other != sig {
					t.Errorf("Sign(%q) differs from Sign(%q)", tt.sameAs, tt.text)
				}
			}
			if tt.differs != "" {
				other := s.Sign(tt.differs)
				if other == sig {
					t.Errorf("Sign(%q) equals Sign(%q)", tt.differs, tt.text)
				}
				if n := AgreeingFeatures(sig, other); n < tt.agreeMin {
					t.Errorf("%d features agree, want at least %d", n, tt.agreeMin)
				}
			}
			switch sig.Kind {
			case KindShingled:
				if sig.Mins == [NumPermutations]uint64{} {
					t.Error("shingled signature without minima")
				}
			case KindExact:
				if sig.Features[0] == sig.Features[1] {
					t.Error("exact features equal at two positions")
				}
			}
		})
	}
}

func TestSigner_Sign_params(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit sed do ", 10)
	base := newTestSigner(t, DefaultParams()).Sign(text)
	if zero := newTestSigner(t, Params{Seed: DefaultSeed}).Sign(text); zero != base {
		t.Error("ShingleWords 0 does not mean the default width")
	}
	if other := newTestSigner(t, Params{ShingleWords: 8, Seed: 1}).Sign(text); AgreeingFeatures(other, base) != 0 {
		t.Error("another seed gives agreeing features")
	}
	if other := newTestSigner(t, Params{ShingleWords: 4, Seed: DefaultSeed}).Sign(text); AgreeingFeatures(other, base) != 0 {
		t.Error("another shingle width gives agreeing features")
	}
	for _, p := range []Params{{ShingleWords: -1}, {ShingleWords: MaxShingleWords + 1}} {
		if _, err := NewSigner(p); err == nil {
			t.Errorf("NewSigner(%+v) accepted", p)
		}
	}
	if s, err := NewSigner(Params{ShingleWords: MaxShingleWords}); err != nil {
		t.Errorf("NewSigner(w=%d): %v", MaxShingleWords, err)
	} else if got := s.Sign(strings.Repeat("x y ", 40)).Kind; got != KindShingled {
		t.Errorf("w=%d, 80 words: kind %v", MaxShingleWords, got)
	}
}

// TestSigner_Sign_large signs 10 MB texts (2 MB with -short) of several
// shapes: no failure, the right kind of signature, and a near-duplicate
// check that still works.
func TestSigner_Sign_large(t *testing.T) {
	size := 10 << 20
	if testing.Short() {
		size = 2 << 20
	}
	s := newTestSigner(t, DefaultParams())
	r := rand.New(rand.NewPCG(9, 9))
	garbage := make([]byte, size)
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	prose := []byte(randomText(r, size/7))
	edited := bytes.Clone(prose)
	copy(edited[len(edited)/2:], " inserted words here ")
	tests := []struct {
		name string
		text []byte
	}{
		{"prose", prose},
		{"one word repeated", bytes.Repeat([]byte("buffalo "), size/8)},
		{"one huge word", bytes.Repeat([]byte("a"), size)},
		{"binary garbage", garbage},
	}
	for _, tt := range tests {
		sig := s.Sign(string(tt.text))
		if err := sig.Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		want := KindShingled
		if tt.name == "one huge word" {
			want = KindExact
		}
		if sig.Kind != want {
			t.Errorf("%s: kind %v, want %v", tt.name, sig.Kind, want)
		}
	}
	if a, b := s.Sign(string(prose)), s.Sign(string(edited)); !NearDuplicate(a, b) {
		t.Errorf("a large text and its copy with one phrase changed: %d features agree", AgreeingFeatures(a, b))
	}
}

func TestSigner_Sign_allocs(t *testing.T) {
	s := newTestSigner(t, DefaultParams())
	text := benchText(10000) + " Ünïcödé"
	if n := testing.AllocsPerRun(10, func() { s.Sign(text) }); n != 0 {
		t.Errorf("Sign allocates %v times, want 0", n)
	}
}

func FuzzSign(f *testing.F) {
	for _, s := range []string{"", "a", "Hello, World!", "a b c d e f g h i j", "\xff\xfe\x00", "É é e\u0301 日本 \u200b x", strings.Repeat("go ", 20)} {
		f.Add(s)
	}
	s := newTestSigner(f, DefaultParams())
	short := newTestSigner(f, Params{ShingleWords: 2, Seed: 3})
	f.Fuzz(func(t *testing.T, text string) {
		sig := s.Sign(text)
		if err := sig.Validate(); err != nil {
			t.Fatalf("Sign(%q): %v", text, err)
		}
		if again := s.Sign(text); again != sig {
			t.Fatalf("Sign(%q) is not deterministic", text)
		}
		words := refWords(text)
		want := KindShingled
		switch {
		case len(words) == 0:
			want = KindEmpty
		case len(words) < DefaultShingleWords:
			want = KindExact
		}
		if sig.Kind != want {
			t.Fatalf("Sign(%q): kind %v for %d words", text, sig.Kind, len(words))
		}
		// Only the words count: the same words re-joined sign the same.
		if norm := s.Sign(strings.Join(words, " ")); norm != sig {
			t.Fatalf("Sign(%q) differs from the signature of its words %q", text, words)
		}
		if len(text) < 120 {
			if got, want := short.Sign(text), refSign(short.Params(), text); got != want {
				t.Fatalf("w=2: Sign(%q) differs from the reference", text)
			}
		}
	})
}

// benchText returns about size bytes of English-like text: words of a
// Zipf-distributed vocabulary, with punctuation and line breaks.
func benchText(size int) string {
	r := rand.New(rand.NewPCG(10, 10))
	vocab := make([]string, 20000)
	for i := range vocab {
		n := 2 + r.IntN(5) + r.IntN(5)
		w := make([]byte, n)
		for k := range w {
			w[k] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(w)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(vocab[zipf.Uint64()])
		switch r.IntN(20) {
		case 0:
			b.WriteString(". ")
		case 1:
			b.WriteString(",\n")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func BenchmarkSigner_Sign(b *testing.B) {
	s := newTestSigner(b, DefaultParams())
	for _, size := range []int{4 << 10, 1 << 20} {
		text := benchText(size)
		b.Run(byteSize(size), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.Sign(text)
			}
		})
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return strings.TrimSuffix(big.NewInt(int64(n>>20)).String(), "") + "MiB"
	}
	return big.NewInt(int64(n>>10)).String() + "KiB"
}

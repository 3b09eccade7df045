package minhash

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestKey_Pair(t *testing.T) {
	n := 0
	for i := 0; i < NumFeatures; i++ {
		for j := i + 1; j < NumFeatures; j++ {
			if got := (Key{I: i, J: j}).Pair(); got != n {
				t.Errorf("Key{I: %d, J: %d}.Pair() = %d, want %d", i, j, got, n)
			}
			n++
		}
	}
	if n != NumKeys {
		t.Fatalf("%d pairs, want %d", n, NumKeys)
	}
}

func TestKey_Hash(t *testing.T) {
	seen := map[uint64]Key{}
	for i := 0; i < NumFeatures; i++ {
		for j := i + 1; j < NumFeatures; j++ {
			for _, ab := range [][2]uint64{{0, 0}, {1, 2}, {2, 1}, {1, 1}, {math.MaxUint64, 0}} {
				k := Key{I: i, J: j, A: ab[0], B: ab[1]}
				if other, ok := seen[k.Hash()]; ok {
					t.Errorf("%+v and %+v hash alike", k, other)
				}
				seen[k.Hash()] = k
			}
		}
	}
}

func TestSignature_Keys(t *testing.T) {
	sig := Signature{Kind: KindExact, Features: [NumFeatures]uint64{10, 11, 12, 13, 14, 15}}
	keys := sig.Keys()
	for n, k := range keys {
		if k.Pair() != n {
			t.Errorf("key %d has pair %d", n, k.Pair())
		}
		if k.A != uint64(10+k.I) || k.B != uint64(10+k.J) {
			t.Errorf("key %d = %+v, want features %d and %d", n, k, k.I, k.J)
		}
	}
	if keys[0] != (Key{I: 0, J: 1, A: 10, B: 11}) || keys[NumKeys-1] != (Key{I: 4, J: 5, A: 14, B: 15}) {
		t.Errorf("keys out of order: first %+v, last %+v", keys[0], keys[NumKeys-1])
	}
}

func TestSignature_Validate(t *testing.T) {
	var mins [NumPermutations]uint64
	mins[7] = 5
	big := mins
	big[83] = Prime
	tests := []struct {
		name string
		sig  Signature
		ok   bool
	}{
		{"zero", Signature{}, true},
		{"empty with features", Signature{Features: [NumFeatures]uint64{1}}, false},
		{"empty with minima", Signature{Mins: mins}, false},
		{"exact", Signature{Kind: KindExact, Features: [NumFeatures]uint64{1, 2}}, true},
		{"exact with minima", Signature{Kind: KindExact, Mins: mins}, false},
		{"shingled", Signature{Kind: KindShingled, Mins: mins}, true},
		{"shingled minimum p", Signature{Kind: KindShingled, Mins: big}, false},
		{"unknown kind", Signature{Kind: 3}, false},
	}
	for _, tt := range tests {
		err := tt.sig.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %t", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v does not wrap ErrSignature", tt.name, err)
		}
	}
}

func TestResemblance(t *testing.T) {
	s := newTestSigner(t, DefaultParams())
	u := &uniqueWords{n: 1 << 20}
	a, b := editedPair(u, 799, 1) // exact resemblance 0.98
	c, d := editedPair(u, 791, 14)
	sa, sb, sc, sd := s.Sign(a), s.Sign(b), s.Sign(c), s.Sign(d)
	short1, short2 := s.Sign("a short text"), s.Sign("another short text")
	var empty Signature
	tests := []struct {
		name   string
		x, y   Signature
		lo, hi float64
	}{
		{"identical", sa, sa, 1, 1},
		{"r=0.98", sa, sb, 0.92, 1},
		{"r=0.75", sc, sd, 0.6, 0.9},
		{"unrelated", sa, sc, 0, 0.05},
		{"same short", short1, short1, 1, 1},
		{"different short", short1, short2, 0, 0},
		{"short and long", short1, sa, 0, 0},
		{"empty", empty, empty, 0, 0},
		{"empty and long", empty, sa, 0, 0},
	}
	for _, tt := range tests {
		got := Resemblance(tt.x, tt.y)
		if got < tt.lo || got > tt.hi {
			t.Errorf("%s: Resemblance = %.3f, want in [%.2f, %.2f]", tt.name, got, tt.lo, tt.hi)
		}
		if back := Resemblance(tt.y, tt.x); back != got {
			t.Errorf("%s: not symmetric: %.3f and %.3f", tt.name, got, back)
		}
	}
}

func TestAgreeingFeatures(t *testing.T) {
	f := func(v ...uint64) Signature {
		s := Signature{Kind: KindShingled}
		copy(s.Features[:], v)
		return s
	}
	tests := []struct {
		a, b Signature
		want int
		near bool
	}{
		{f(1, 2, 3, 4, 5, 6), f(1, 2, 3, 4, 5, 6), 6, true},
		{f(1, 2, 3, 4, 5, 6), f(1, 0, 0, 0, 0, 6), 2, true},
		{f(1, 2, 3, 4, 5, 6), f(0, 0, 3, 0, 0, 0), 1, false},
		{f(1, 2, 3, 4, 5, 6), f(6, 5, 4, 3, 2, 1), 0, false},
		{Signature{}, Signature{}, 0, false},
	}
	for _, tt := range tests {
		if got := AgreeingFeatures(tt.a, tt.b); got != tt.want {
			t.Errorf("AgreeingFeatures(%v, %v) = %d, want %d", tt.a.Features, tt.b.Features, got, tt.want)
		}
		if got := NearDuplicate(tt.a, tt.b); got != tt.near {
			t.Errorf("NearDuplicate(%v, %v) = %t, want %t", tt.a.Features, tt.b.Features, got, tt.near)
		}
	}
}

func TestSignature_MarshalBinary(t *testing.T) {
	s := newTestSigner(t, DefaultParams())
	for _, tt := range []struct {
		text string
		size int
	}{
		{"", 2},
		{"short text", 50},
		{strings.Repeat("a longer text of many words ", 5), 722},
	} {
		sig := s.Sign(tt.text)
		b, err := sig.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary(%v): %v", sig.Kind, err)
		}
		if len(b) != tt.size {
			t.Errorf("%v signature encodes to %d bytes, want %d", sig.Kind, len(b), tt.size)
		}
		var back Signature
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("UnmarshalBinary: %v", err)
		}
		if back != sig {
			t.Errorf("%v signature does not survive encoding", sig.Kind)
		}
	}
	if _, err := (Signature{Kind: 7}).MarshalBinary(); !errors.Is(err, ErrSignature) {
		t.Errorf("MarshalBinary of kind 7 = %v, want ErrSignature", err)
	}
}

func TestSignature_UnmarshalBinary_errors(t *testing.T) {
	long := newTestSigner(t, DefaultParams()).Sign(strings.Repeat("one two three four five six seven eight ", 3))
	good, _ := long.MarshalBinary()
	badMin := bytes.Clone(good)
	copy(badMin[len(badMin)-8:], []byte{0x20, 0, 0, 0, 0, 0, 0, 0}) // 2^61 > p
	tests := map[string][]byte{
		"nil":               nil,
		"one byte":          {1},
		"version 2":         {2, 0},
		"unknown kind":      {1, 3},
		"empty with data":   {1, 0, 0},
		"exact too short":   append([]byte{1, 1}, make([]byte, 47)...),
		"shingled too long": append(bytes.Clone(good), 0),
		"shingled as exact": append([]byte{1, 1}, good[2:]...),
		"minimum ≥ p":       badMin,
	}
	for name, data := range tests {
		sig := long
		err := sig.UnmarshalBinary(data)
		if !errors.Is(err, ErrSignature) {
			t.Errorf("%s: UnmarshalBinary = %v, want ErrSignature", name, err)
		}
		if sig != long {
			t.Errorf("%s: failed UnmarshalBinary changed the signature", name)
		}
	}
}

func FuzzSignature_UnmarshalBinary(f *testing.F) {
	s := newTestSigner(f, DefaultParams())
	for _, text := range []string{"", "short", strings.Repeat("w x y z ", 4)} {
		b, _ := s.Sign(text).MarshalBinary()
		f.Add(b)
	}
	f.Add([]byte{1, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		var sig Signature
		if err := sig.UnmarshalBinary(data); err != nil {
			return
		}
		if err := sig.Validate(); err != nil {
			t.Fatalf("decoded an invalid signature: %v", err)
		}
		again, err := sig.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary of a decoded signature: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("decoding is not one-to-one: %x re-encodes as %x", data, again)
		}
	})
}

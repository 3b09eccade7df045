package minhash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Kind says which path of the signing algorithm made a Signature.
type Kind uint8

const (
	// KindEmpty is the signature of a text without words. It is the zero
	// Kind, so the zero Signature is the empty one. Empty signatures
	// resemble nothing and are never indexed.
	KindEmpty Kind = iota
	// KindExact is the signature of a text with fewer words than the
	// shingle width. Its features derive from a hash of the whole word
	// sequence, so it agrees only with the signature of the same words; its
	// Mins are zero.
	KindExact
	// KindShingled is the min-hash signature of a text with at least as
	// many words as the shingle width.
	KindShingled
)

// String returns the name of k.
func (k Kind) String() string {
	switch k {
	case KindEmpty:
		return "empty"
	case KindExact:
		return "exact"
	case KindShingled:
		return "shingled"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ErrSignature is returned, wrapped, for a malformed Signature or encoding.
var ErrSignature = errors.New("invalid min-hash signature")

// Signature is what near-duplicate detection keeps of a text.
//
// Features are compared position by position: two signatures of equal
// Params are near-duplicates when at least MinAgreeing features agree.
// Mins keep the 84 permutation minima of a shingled text so that
// Resemblance can estimate how similar two texts are.
type Signature struct {
	// Kind says how the signature was made.
	Kind Kind
	// Features are the six ordered features: for KindShingled the
	// fingerprints of the six groups of 14 consecutive minima, for
	// KindExact six fingerprints of the exact word sequence, and zero for
	// KindEmpty.
	Features [NumFeatures]uint64
	// Mins are min π_i over the shingles for i = 0..83, each below Prime,
	// for KindShingled; zero otherwise.
	Mins [NumPermutations]uint64
}

// Validate reports whether s is well formed: a known Kind, minima below
// Prime, and zero fields where the Kind has none.
func (s Signature) Validate() error {
	switch s.Kind {
	case KindEmpty:
		if s.Features != ([NumFeatures]uint64{}) {
			return fmt.Errorf("%w: empty signature with features", ErrSignature)
		}
		if s.Mins != ([NumPermutations]uint64{}) {
			return fmt.Errorf("%w: empty signature with minima", ErrSignature)
		}
	case KindExact:
		if s.Mins != ([NumPermutations]uint64{}) {
			return fmt.Errorf("%w: exact signature with minima", ErrSignature)
		}
	case KindShingled:
		for i, m := range s.Mins {
			if m >= Prime {
				return fmt.Errorf("%w: minimum %d is %#x, not below 2^61-1", ErrSignature, i, m)
			}
		}
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrSignature, uint8(s.Kind))
	}
	return nil
}

// Indexable reports whether s takes part in duplicate detection: every
// signature except the empty one does.
func (s Signature) Indexable() bool {
	return s.Kind != KindEmpty
}

// Key is one of the NumKeys index keys of a signature: the features at the
// positions I < J. Two signatures share a key exactly when they agree at
// both positions, so a page is a near-duplicate of an indexed page when any
// of its keys is in the index. Keys of different position pairs never
// match, even when their values are equal.
type Key struct {
	// I and J are the feature positions, 0 ≤ I < J < NumFeatures.
	I, J int
	// A and B are Features[I] and Features[J].
	A, B uint64
}

// Pair returns the number of the position pair (I, J) in the order
// (0,1), (0,2), …, (0,5), (1,2), …, (4,5): a value in [0, NumKeys).
func (k Key) Pair() int {
	return k.I*(2*NumFeatures-k.I-1)/2 + (k.J - k.I - 1)
}

// Hash returns a well-mixed 64-bit hash of the whole key, positions
// included, for tables that index keys by one integer. Equal hashes do not
// prove equal keys; compare A and B as well.
func (k Key) Hash() uint64 {
	return keyHash(k.Pair(), k.A, k.B)
}

// keyHash mixes a position pair and two features into 64 bits.
func keyHash(pair int, a, b uint64) uint64 {
	h := a*0x9e3779b97f4a7c15 ^ bits.RotateLeft64(b*0xc2b2ae3d27d4eb4f, 31) ^ uint64(pair+1)*0x165667b19e3779f9
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	return h
}

// pairs lists the position pairs in Key.Pair order.
var pairs = func() (p [NumKeys][2]int) {
	n := 0
	for i := 0; i < NumFeatures; i++ {
		for j := i + 1; j < NumFeatures; j++ {
			p[n] = [2]int{i, j}
			n++
		}
	}
	return p
}()

// Keys returns the NumKeys index keys of s in Key.Pair order. Callers should
// not index an empty signature (see Indexable).
func (s Signature) Keys() [NumKeys]Key {
	var keys [NumKeys]Key
	for n, p := range pairs {
		keys[n] = Key{I: p[0], J: p[1], A: s.Features[p[0]], B: s.Features[p[1]]}
	}
	return keys
}

// AgreeingFeatures returns how many features a and b share at the same
// positions; it is zero when either is empty.
func AgreeingFeatures(a, b Signature) int {
	if !a.Indexable() || !b.Indexable() {
		return 0
	}
	n := 0
	for i := range a.Features {
		if a.Features[i] == b.Features[i] {
			n++
		}
	}
	return n
}

// NearDuplicate reports whether a and b share at least MinAgreeing
// features: the test an Index applies, for two signatures in isolation.
func NearDuplicate(a, b Signature) bool {
	return AgreeingFeatures(a, b) >= MinAgreeing
}

// Resemblance estimates the Jaccard resemblance |A∩B|/|A∪B| of the shingle
// sets of two texts as the fraction of the 84 minima on which a and b
// agree; its standard error is about sqrt(r(1−r)/84). Two exact signatures
// resemble each other 1 when their word sequences are equal and 0
// otherwise; an exact and a shingled signature resemble 0, and an empty
// signature resembles nothing. Both must come from equal Params.
func Resemblance(a, b Signature) float64 {
	switch {
	case a.Kind == KindShingled && b.Kind == KindShingled:
		n := 0
		for i := range a.Mins {
			if a.Mins[i] == b.Mins[i] {
				n++
			}
		}
		return float64(n) / NumPermutations
	case a.Kind == KindExact && b.Kind == KindExact && a.Features == b.Features:
		return 1
	}
	return 0
}

// Binary encoding: a version byte, the kind byte, then for indexable kinds
// the six features and for shingled ones the 84 minima, all big-endian
// uint64.
const (
	binaryVersion    = 1
	binaryHeader     = 2
	binaryFeatures   = NumFeatures * 8
	binaryMins       = NumPermutations * 8
	binaryEmptyLen   = binaryHeader
	binaryExactLen   = binaryHeader + binaryFeatures
	binaryShingleLen = binaryHeader + binaryFeatures + binaryMins
)

// MarshalBinary encodes s compactly for storage: 2 bytes when empty, 50
// when exact and 722 when shingled.
func (s Signature) MarshalBinary() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("encode signature: %w", err)
	}
	b := make([]byte, binaryHeader, binaryShingleLen)
	b[0], b[1] = binaryVersion, byte(s.Kind)
	if s.Kind == KindEmpty {
		return b, nil
	}
	for _, f := range s.Features {
		b = binary.BigEndian.AppendUint64(b, f)
	}
	if s.Kind == KindShingled {
		for _, m := range s.Mins {
			b = binary.BigEndian.AppendUint64(b, m)
		}
	}
	return b, nil
}

// UnmarshalBinary decodes the output of MarshalBinary, rejecting any other
// input with an error that wraps ErrSignature.
func (s *Signature) UnmarshalBinary(data []byte) error {
	if len(data) < binaryHeader {
		return fmt.Errorf("decode signature: %w: %d bytes", ErrSignature, len(data))
	}
	if data[0] != binaryVersion {
		return fmt.Errorf("decode signature: %w: version %d", ErrSignature, data[0])
	}
	var t Signature
	t.Kind = Kind(data[1])
	want := 0
	switch t.Kind {
	case KindEmpty:
		want = binaryEmptyLen
	case KindExact:
		want = binaryExactLen
	case KindShingled:
		want = binaryShingleLen
	default:
		return fmt.Errorf("decode signature: %w: unknown kind %d", ErrSignature, data[1])
	}
	if len(data) != want {
		return fmt.Errorf("decode signature: %w: %s signature of %d bytes, want %d", ErrSignature, t.Kind, len(data), want)
	}
	rest := data[binaryHeader:]
	if t.Kind != KindEmpty {
		for i := range t.Features {
			t.Features[i] = binary.BigEndian.Uint64(rest[8*i:])
		}
		rest = rest[binaryFeatures:]
	}
	if t.Kind == KindShingled {
		for i := range t.Mins {
			t.Mins[i] = binary.BigEndian.Uint64(rest[8*i:])
		}
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("decode signature: %w", err)
	}
	*s = t
	return nil
}

package minhash

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The fixed shape of a signature (Broder 2000): NumPermutations minima, split
// in order into NumFeatures groups of GroupSize, and two pages are
// near-duplicates when at least MinAgreeing features agree.
const (
	// NumPermutations is the number of linear permutations, and so of
	// minima in Signature.Mins.
	NumPermutations = 84
	// NumFeatures is the number of features in a Signature.
	NumFeatures = 6
	// GroupSize is the number of consecutive minima fingerprinted into one
	// feature.
	GroupSize = NumPermutations / NumFeatures
	// MinAgreeing is how many features (at the same positions) two
	// signatures must share to be near-duplicates.
	MinAgreeing = 2
	// NumKeys is the number of index keys of a signature: one per ordered
	// pair of feature positions i < j.
	NumKeys = NumFeatures * (NumFeatures - 1) / 2
)

// Prime is the modulus p = 2^61 − 1 of the linear permutations
// π_i(x) = (a_i·x + b_i) mod p. Every minimum is below Prime.
const Prime uint64 = 1<<61 - 1

const (
	// DefaultShingleWords is the shingle width w used when
	// Params.ShingleWords is zero.
	DefaultShingleWords = 8
	// MaxShingleWords is the largest accepted shingle width.
	MaxShingleWords = 64
	// DefaultSeed is the permutation seed of DefaultParams.
	DefaultSeed uint64 = 0x5ce17c4a11d5eed1
)

// formatVersion names the signature algorithm (tokenizer, fingerprint
// polynomial, permutation generator, feature layout) in Params.MarshalText.
// It changes whenever a change makes old signatures incomparable with new
// ones.
const formatVersion = "minhash/1"

// ErrParams is returned, wrapped, for invalid or incompatible parameters.
var ErrParams = errors.New("invalid min-hash parameters")

// Params are the choices that make two signatures comparable. An index must
// store them with its keys (see MarshalText) and only ever be given
// signatures made with equal Params.
type Params struct {
	// ShingleWords is the shingle width w in words. Zero means
	// DefaultShingleWords; otherwise it must be in [1, MaxShingleWords].
	// Texts with fewer than w words get an exact-text signature.
	ShingleWords int
	// Seed determines the permutation coefficients a_i and b_i. Any value,
	// including zero, is a valid seed.
	Seed uint64
}

// DefaultParams returns w = 8 and DefaultSeed.
func DefaultParams() Params {
	return Params{ShingleWords: DefaultShingleWords, Seed: DefaultSeed}
}

// Validate reports whether p can build a Signer.
func (p Params) Validate() error {
	if p.ShingleWords < 0 || p.ShingleWords > MaxShingleWords {
		return fmt.Errorf("%w: shingle width %d not in [1, %d]", ErrParams, p.ShingleWords, MaxShingleWords)
	}
	return nil
}

// resolved returns p with the zero values replaced by defaults.
func (p Params) resolved() Params {
	if p.ShingleWords == 0 {
		p.ShingleWords = DefaultShingleWords
	}
	return p
}

// Stored returns the parameters a store of signatures goes on with: those
// it recorded (stored, the text of MarshalText; "" when it recorded none),
// else p, else DefaultParams (p nil). When the store recorded none, record
// is the text to record; it fails when the store recorded other
// parameters than p, whose signatures cannot be compared with p's.
func Stored(stored string, p *Params) (use Params, record string, err error) {
	if stored == "" {
		use = DefaultParams()
		if p != nil {
			use = *p
		}
		text, err := use.MarshalText()
		if err != nil {
			return Params{}, "", fmt.Errorf("min-hash parameters: %w", err)
		}
		return use, string(text), nil
	}
	if err := use.UnmarshalText([]byte(stored)); err != nil {
		return Params{}, "", fmt.Errorf("min-hash parameters of the database: %w", err)
	}
	if p == nil {
		return use, "", nil
	}
	text, err := p.MarshalText()
	if err != nil {
		return Params{}, "", fmt.Errorf("min-hash parameters: %w", err)
	}
	if string(text) != stored {
		return Params{}, "", fmt.Errorf("%w: the database's near-duplicate index holds signatures made with %q, not %q; use a new database or the same parameters",
			ErrParams, stored, text)
	}
	return use, "", nil
}

// MarshalText encodes the effective parameters together with the version of
// the signature algorithm, e.g. "minhash/1 w=8 seed=0x5ce17c4a11d5eed1".
// Two Params produce comparable signatures exactly when their texts are
// equal.
func (p Params) MarshalText() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.resolved()
	return fmt.Appendf(nil, "%s w=%d seed=%#016x", formatVersion, p.ShingleWords, p.Seed), nil
}

// UnmarshalText decodes the output of MarshalText. It rejects text written
// by another version of the signature algorithm, since such signatures
// cannot be compared with the ones this package makes.
func (p *Params) UnmarshalText(text []byte) error {
	fields := strings.Fields(string(text))
	if len(fields) != 3 {
		return fmt.Errorf("parse params %q: %w: want 3 fields", text, ErrParams)
	}
	if fields[0] != formatVersion {
		return fmt.Errorf("parse params %q: %w: algorithm %q, this build makes %q", text, ErrParams, fields[0], formatVersion)
	}
	ws, ok := strings.CutPrefix(fields[1], "w=")
	if !ok {
		return fmt.Errorf("parse params %q: %w: missing w=", text, ErrParams)
	}
	w, err := strconv.Atoi(ws)
	if err != nil || w < 1 {
		return fmt.Errorf("parse params %q: %w: bad shingle width %q", text, ErrParams, ws)
	}
	ss, ok := strings.CutPrefix(fields[2], "seed=")
	if !ok {
		return fmt.Errorf("parse params %q: %w: missing seed=", text, ErrParams)
	}
	seed, err := strconv.ParseUint(ss, 0, 64)
	if err != nil {
		return fmt.Errorf("parse params %q: %w: bad seed %q", text, ErrParams, ss)
	}
	q := Params{ShingleWords: w, Seed: seed}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("parse params %q: %w", text, err)
	}
	*p = q
	return nil
}

// splitmix64 is the generator that turns a seed into permutation
// coefficients. It is written out here, not taken from math/rand, because
// its output must never change: a stored index depends on it.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform value in [lo, Prime) by rejection.
func (s *splitmix64) below(lo uint64) uint64 {
	for {
		v := s.next() >> 3
		if v >= lo && v < Prime {
			return v
		}
	}
}

// coefficients returns the a_i in [1, p) and b_i in [0, p) of the
// permutations for seed.
func coefficients(seed uint64) (a, b [NumPermutations]uint64) {
	g := splitmix64(seed)
	for i := range a {
		a[i] = g.below(1)
		b[i] = g.below(0)
	}
	return a, b
}

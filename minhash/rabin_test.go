package minhash

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// Polynomials over GF(2) of any degree, as big.Int bit vectors (bit k is
// the coefficient of x^k), for the irreducibility test.

func gfMod(a, m *big.Int) *big.Int {
	r := new(big.Int).Set(a)
	for d := m.BitLen(); r.BitLen() >= d; {
		r.Xor(r, new(big.Int).Lsh(m, uint(r.BitLen()-d)))
	}
	return r
}

func gfMulMod(a, b, m *big.Int) *big.Int {
	r := new(big.Int)
	for i := b.BitLen() - 1; i >= 0; i-- {
		r.Lsh(r, 1)
		if b.Bit(i) == 1 {
			r.Xor(r, a)
		}
		r = gfMod(r, m)
	}
	return r
}

func gfGCD(a, b *big.Int) *big.Int {
	a, b = new(big.Int).Set(a), new(big.Int).Set(b)
	for b.Sign() != 0 {
		a, b = b, gfMod(a, b)
	}
	return a
}

// gfXPow2k returns x^(2^k) mod m by k squarings.
func gfXPow2k(k int, m *big.Int) *big.Int {
	r := gfMod(big.NewInt(2), m)
	for range k {
		r = gfMulMod(r, r, m)
	}
	return r
}

// irreducible applies Rabin's test: m of degree n ≥ 1 is irreducible over
// GF(2) if and only if x^(2^n) ≡ x (mod m) and gcd(x^(2^(n/q)) − x, m) = 1
// for every prime q dividing n.
func irreducible(m *big.Int) bool {
	n := m.BitLen() - 1
	if n < 1 {
		return false
	}
	x := gfMod(big.NewInt(2), m)
	if gfXPow2k(n, m).Cmp(x) != 0 {
		return false
	}
	for q := 2; q <= n; q++ {
		if n%q != 0 || !isPrime(q) {
			continue
		}
		h := gfXPow2k(n/q, m)
		h.Xor(h, x)
		if gfGCD(h, m).Cmp(big.NewInt(1)) != 0 {
			return false
		}
	}
	return true
}

func isPrime(q int) bool {
	for d := 2; d*d <= q; d++ {
		if q%d == 0 {
			return false
		}
	}
	return q >= 2
}

func poly64(low uint64) *big.Int {
	m := new(big.Int).SetUint64(low)
	return m.SetBit(m, 64, 1)
}

func TestPolynomial_irreducible(t *testing.T) {
	if !irreducible(poly64(Polynomial)) {
		t.Fatalf("x^64 + %#x is reducible", Polynomial)
	}
}

// TestIrreducible checks the test itself: it must count the irreducible
// polynomials of small degrees exactly, as Gauss's formula
// (1/n)·Σ_{d|n} μ(d)·2^(n/d) gives them, and reject known reducible
// polynomials of degree 64.
func TestIrreducible(t *testing.T) {
	want := map[int]int{1: 2, 2: 1, 3: 2, 4: 3, 5: 6, 6: 9, 7: 18, 8: 30, 9: 56, 10: 99}
	for n, w := range want {
		got := 0
		for low := int64(0); low < 1<<n; low++ {
			if irreducible(big.NewInt(1<<n | low)) {
				got++
			}
		}
		if got != w {
			t.Errorf("degree %d: %d irreducible polynomials, want %d", n, got, w)
		}
	}
	// x^64 + x^4 + x^3 + x + 1 is a known irreducible polynomial.
	if !irreducible(poly64(0x1b)) {
		t.Error("x^64 + x^4 + x^3 + x + 1 judged reducible")
	}
	reducible := map[string]*big.Int{
		"x^64 + 1 = (x+1)^64":             poly64(1),
		"x^64 + x":                        poly64(2),
		"(x^32 + x^7 + x^3 + x^2 + 1)^2":  poly64(1<<14 | 1<<6 | 1<<4 | 1),
		"(x^2 + x + 1)·(x^62 + x^29 + 1)": gfMulPlain(big.NewInt(7), poly62()),
	}
	for name, m := range reducible {
		if m.BitLen() != 65 {
			t.Fatalf("%s: degree %d", name, m.BitLen()-1)
		}
		if irreducible(m) {
			t.Errorf("%s judged irreducible", name)
		}
	}
}

func poly62() *big.Int {
	m := new(big.Int).SetBit(new(big.Int), 62, 1)
	m.SetBit(m, 29, 1)
	return m.SetBit(m, 0, 1)
}

// gfMulPlain multiplies two polynomials without reduction.
func gfMulPlain(a, b *big.Int) *big.Int {
	r := new(big.Int)
	for i := range b.BitLen() {
		if b.Bit(i) == 1 {
			r.Xor(r, new(big.Int).Lsh(a, uint(i)))
		}
	}
	return r
}

// refFingerprint is the definition of the Rabin fingerprint: the message,
// read bit by bit from the most significant bit of its first byte, as a
// polynomial reduced modulo P by long division, starting from residue f.
func refFingerprint(f uint64, msg []byte) uint64 {
	for _, c := range msg {
		for bit := 7; bit >= 0; bit-- {
			carry := f >> 63
			f = f<<1 | uint64(c>>uint(bit)&1)
			if carry != 0 {
				f ^= Polynomial
			}
		}
	}
	return f
}

// refFingerprintBig computes the same residue with big.Int arithmetic.
func refFingerprintBig(msg []byte) uint64 {
	return gfMod(new(big.Int).SetBytes(msg), poly64(Polynomial)).Uint64()
}

func TestFingerprint(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		want := refFingerprintBig(msg)
		if got := refFingerprint(0, msg); got != want {
			t.Fatalf("bitwise reference %#x, big.Int reference %#x for %x", got, want, msg)
		}
		if got := fpBytes(0, msg); got != want {
			t.Fatalf("fpBytes(%x) = %#x, want %#x", msg, got, want)
		}
		f := uint64(0)
		for _, c := range msg {
			f = fpByte(f, c)
		}
		if f != want {
			t.Fatalf("fpByte over %x = %#x, want %#x", msg, f, want)
		}
	}
	// Fingerprints of distinct short messages are distinct, and a
	// fingerprint of a message of 8 bytes or fewer is the message itself.
	if got := fpBytes(0, []byte("abc")); got != 0x616263 {
		t.Errorf("fingerprint of \"abc\" = %#x, want 0x616263", got)
	}
}

func TestMulX64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		g, v := r.Uint64(), r.Uint64()
		var msg [16]byte
		for i := range 8 {
			msg[i] = byte(v >> (56 - 8*i))
		}
		// fpUint64 extends a message of residue g by the 8 bytes of v.
		if got, want := fpUint64(g, v), refFingerprint(g, msg[:8]); got != want {
			t.Fatalf("fpUint64(%#x, %#x) = %#x, want %#x", g, v, got, want)
		}
		if got, want := mulX64(g), polyMulMod(g, xPow(64)); got != want {
			t.Fatalf("mulX64(%#x) = %#x, want %#x", g, got, want)
		}
	}
}

func TestMulAddMod(t *testing.T) {
	p := new(big.Int).SetUint64(Prime)
	r := rand.New(rand.NewPCG(5, 6))
	edge := []uint64{0, 1, 2, Prime - 2, Prime - 1}
	for i := range 10000 {
		a, x, b := r.Uint64N(Prime), r.Uint64N(Prime), r.Uint64N(Prime)
		if i < 125 {
			a, x, b = edge[i%5], edge[i/5%5], edge[i/25%5]
		}
		want := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(x))
		want.Add(want, new(big.Int).SetUint64(b)).Mod(want, p)
		if got := mulAddMod(a, x, b); got != want.Uint64() {
			t.Fatalf("mulAddMod(%d, %d, %d) = %d, want %d", a, x, b, got, want)
		}
	}
}

func TestCoefficients(t *testing.T) {
	a, b := coefficients(DefaultSeed)
	a2, b2 := coefficients(DefaultSeed)
	if a != a2 || b != b2 {
		t.Fatal("coefficients are not a function of the seed")
	}
	seen := map[uint64]bool{}
	for i := range a {
		if a[i] == 0 || a[i] >= Prime || b[i] >= Prime {
			t.Fatalf("coefficient %d out of range: a=%d b=%d", i, a[i], b[i])
		}
		seen[a[i]] = true
	}
	if len(seen) != NumPermutations {
		t.Errorf("%d distinct a_i, want %d", len(seen), NumPermutations)
	}
	// The first values for seed 0 pin the generator: stored indexes rely
	// on it never changing.
	g := splitmix64(0)
	if got := g.next(); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) first output %#x, want 0xe220a8397b1dcdaf", got)
	}
	if a3, _ := coefficients(DefaultSeed + 1); a3 == a {
		t.Error("different seeds give the same permutations")
	}
}

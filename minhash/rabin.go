package minhash

// Polynomial holds the low 64 coefficients of the irreducible polynomial
// P(x) of degree 64 over GF(2) that every Rabin fingerprint in this package
// is taken modulo: bit k is the coefficient of x^k, and the coefficient of
// x^64 is 1 and implicit. The tests prove irreducibility with Rabin's test.
// Changing it changes every signature, so it is part of the signature format
// version written by Params.MarshalText.
const Polynomial uint64 = 0xfbc5c885b8ee1851

// A fingerprint is the residue m(x) mod P(x) of a message read as a
// polynomial, most significant bit first. Its 64-bit representation has bit
// k set when the residue has the term x^k.

// topTable[h] is h(x)·x^64 mod P: what the byte h shifted out at the top of
// a residue contributes back after reduction. It drives the byte-at-a-time
// update.
var topTable [256]uint64

// shiftTables[k][v] is v(x)·x^(8k)·x^64 mod P, so that g(x)·x^64 mod P is the
// exclusive or of shiftTables[k][byte k of g] over the eight bytes of g.
var shiftTables [8][256]uint64

func init() {
	for h := range topTable {
		topTable[h] = polyMulMod(uint64(h), xPow(64))
	}
	fillShiftTables(&shiftTables, 64)
}

// fillShiftTables sets t[k][v] = v(x)·x^(8k+shift) mod P.
func fillShiftTables(t *[8][256]uint64, shift int) {
	for k := range t {
		m := xPow(8*k + shift)
		for v := range t[k] {
			t[k][v] = polyMulMod(uint64(v), m)
		}
	}
}

// xPow returns x^n mod P.
func xPow(n int) uint64 {
	r := uint64(1)
	for range n {
		r = mulX(r)
	}
	return r
}

// mulX returns a(x)·x mod P.
func mulX(a uint64) uint64 {
	carry := a >> 63
	a <<= 1
	if carry != 0 {
		a ^= Polynomial
	}
	return a
}

// polyMulMod returns a(x)·b(x) mod P by shift and add; it builds the tables
// and is too slow for anything per byte.
func polyMulMod(a, b uint64) uint64 {
	var r uint64
	for i := 63; i >= 0; i-- {
		r = mulX(r)
		if b>>uint(i)&1 != 0 {
			r ^= a
		}
	}
	return r
}

// fpByte appends the byte c to the message whose fingerprint is f.
func fpByte(f uint64, c byte) uint64 {
	return (f<<8 | uint64(c)) ^ topTable[f>>56]
}

// fpBytes appends the bytes of data to the message whose fingerprint is f.
func fpBytes(f uint64, data []byte) uint64 {
	for _, c := range data {
		f = (f<<8 | uint64(c)) ^ topTable[f>>56]
	}
	return f
}

// fpUint64 appends the eight bytes of v, most significant first.
func fpUint64(f, v uint64) uint64 {
	return mulX64(f) ^ v
}

// mulX64 returns g(x)·x^64 mod P with eight independent table look-ups.
func mulX64(g uint64) uint64 {
	return lookup8(&shiftTables, g)
}

// lookup8 returns the exclusive or of t[k][byte k of g].
func lookup8(t *[8][256]uint64, g uint64) uint64 {
	return t[0][byte(g)] ^
		t[1][byte(g>>8)] ^
		t[2][byte(g>>16)] ^
		t[3][byte(g>>24)] ^
		t[4][byte(g>>32)] ^
		t[5][byte(g>>40)] ^
		t[6][byte(g>>48)] ^
		t[7][byte(g>>56)]
}

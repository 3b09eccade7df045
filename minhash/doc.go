// Package minhash finds near-duplicate pages at store time, with Broder's
// min-hash signatures and an index of feature pairs.
//
// Data flows in two steps. A Signer, made from Params, turns the core text
// of a page into a Signature:
//
//	text → words (letters, digits and marks, lower-cased)
//	     → shingles of w consecutive words (w = 8 by default)
//	     → 64-bit Rabin fingerprints modulo an irreducible polynomial of degree 64
//	     → 84 linear permutations π_i(x) = (a_i·x + b_i) mod 2^61−1, min over shingles
//	     → 6 groups of 14 minima, in order → a Rabin fingerprint per group
//	     → 6 ordered features
//
// Texts with fewer than w words get features from a hash of their exact
// word sequence instead, and texts without words get the empty signature,
// which never matches. Two signatures are near-duplicates when at least two
// features agree at the same positions; for pages whose shingle sets have
// Jaccard resemblance above 0.975 that happens with probability above 0.99,
// and below 0.77 with probability below 0.01.
//
// An Index then decides, as each page is stored, whether it is a
// near-duplicate of a page stored before: it keeps the 15 keys of each
// original page (pairs of features, with their positions) and reports the
// earliest stored page that shares a key. Duplicates point at their
// original and are not indexed. MemIndex is the in-memory implementation;
// package minhashtest holds the behaviour suite that every implementation
// must pass. Resemblance estimates the resemblance of two signatures, for
// listing clusters of duplicates.
//
// Signatures are comparable only when made with equal Params, so a stored
// index must keep Params.MarshalText beside its keys, and Signature has a
// binary encoding for storing signatures with their pages.
//
// The package imports nothing else of scent's.
package minhash

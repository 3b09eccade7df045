package minhash

import (
	"context"
	"errors"
)

// ErrIDInUse is returned, wrapped, when a page id that is already indexed is
// inserted again with a signature that does not match its own. Remove the
// id first to index new content under it.
var ErrIDInUse = errors.New("page id already indexed with another signature")

// Index is the store-time near-duplicate index: a set of pages, each with
// the NumKeys keys of its signature. Every implementation must pass the
// behaviour suite in package minhashtest. The contract:
//
//   - A signature matches an indexed page when they share at least one key
//     (Signature.Keys), that is, agree on the features at two or more
//     positions. Keys include their positions: equal values at different
//     positions never match.
//   - When several indexed pages match, the one inserted earliest is the
//     original, whatever the order of the ids.
//   - Only originals are indexed. A duplicate points at its original and is
//     not added, so a later page resembling only the duplicate is not
//     caught through it.
//   - Empty signatures (see Signature.Indexable) are never duplicates and
//     never indexed.
//   - Signatures must be valid (Signature.Validate), else ErrSignature is
//     returned wrapped, and must come from equal Params; an
//     implementation that persists its keys must persist the Params too
//     (Params.MarshalText) and refuse to mix them.
//   - Every method is safe for concurrent use and atomic: of two pages
//     inserted concurrently that match each other, exactly one becomes the
//     original.
//   - A method called with a context that is already done returns an error
//     wrapping ctx.Err() and changes nothing.
type Index interface {
	// CheckAndInsert decides at store time whether page id is a
	// near-duplicate. If sig matches indexed pages it returns the earliest
	// of them and dup = true, and indexes nothing. Otherwise it indexes id
	// under sig and returns original = id and dup = false; it does the same,
	// without indexing, for an empty sig. If the earliest match is id
	// itself (the page was indexed before with a matching signature) it
	// returns id and dup = false and changes nothing, so retrying an insert
	// is harmless. Inserting an id that is indexed but does not match sig
	// fails with ErrIDInUse.
	CheckAndInsert(ctx context.Context, id int64, sig Signature) (original int64, dup bool, err error)

	// Lookup returns the page that CheckAndInsert would report as the
	// original of sig, without indexing anything; found is false when no
	// indexed page matches.
	Lookup(ctx context.Context, sig Signature) (original int64, found bool, err error)

	// Remove takes page id out of the index, so that later pages are no
	// longer compared with it (for a page that was deleted, or before
	// indexing its new content). Removing an id that is not indexed is not
	// an error.
	Remove(ctx context.Context, id int64) error
}

// KeyRows are the rows a store reads back from its key table, as
// database/sql's and pgx's rows both give them: per row a key hash
// (Key.Hash as int64), the page's insertion sequence number, its id and
// its NumFeatures features (as int64).
type KeyRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// FirstConfirmed reads rows, the indexed pages holding any of keys'
// hashes in insertion order, and returns the first page whose stored
// features confirm one of keys (equal hashes alone do not prove equal
// keys). It does not close rows.
func FirstConfirmed(rows KeyRows, keys [NumKeys]Key) (id, seq int64, found bool, err error) {
	var hash int64
	var f [NumFeatures]int64
	dest := []any{&hash, &seq, &id}
	for i := range f {
		dest = append(dest, &f[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return 0, 0, false, err
		}
		for _, k := range keys {
			if int64(k.Hash()) == hash && uint64(f[k.I]) == k.A && uint64(f[k.J]) == k.B {
				return id, seq, true, nil
			}
		}
	}
	return 0, 0, false, rows.Err()
}

// Admit checks what every Index checks first in CheckAndInsert and
// Lookup (the contract above): it returns an error wrapping ctx.Err()
// when ctx is done and one wrapping ErrSignature when sig is not valid,
// and otherwise whether sig is indexable: an empty signature is never a
// duplicate and never indexed.
func Admit(ctx context.Context, sig Signature) (indexable bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := sig.Validate(); err != nil {
		return false, err
	}
	return sig.Indexable(), nil
}

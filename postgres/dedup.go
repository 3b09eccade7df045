package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/minhash"
)

// MinhashIndex is the near-duplicate index of a database: a minhash.Index
// whose pages and keys live in the tables dedup_pages and dedup_keys,
// shared by every crawl and every process using the database. The store's
// own Commit uses the same tables, with pages.id as page ids.
//
// Every key is stored as its minhash.Key.Hash next to the insertion rank
// of its page; a hash match is confirmed against the page's stored
// features. A check and its insert run in one transaction holding the
// advisory locks of the signature's key hashes: two processes inserting
// near-duplicates at once share a key, so one waits for the other and
// finds its page.
type MinhashIndex struct {
	s      *Store
	params minhash.Params
}

var _ minhash.Index = (*MinhashIndex)(nil)

// MinhashIndex returns the database's near-duplicate index for signatures
// made with p. The first call on a database records p; a later call with
// different Params fails with an error wrapping minhash.ErrParams.
func (s *Store) MinhashIndex(ctx context.Context, p minhash.Params) (*MinhashIndex, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := ensureParams(ctx, tx, &p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open min-hash index: %w", err)
	}
	return &MinhashIndex{s: s, params: p}, nil
}

// Params returns the parameters the index was opened with.
func (x *MinhashIndex) Params() minhash.Params { return x.params }

// paramsLock orders the first recording of the parameters.
var paramsLock = lockKey("scent min-hash parameters")

// ensureParams records *p as the database's min-hash parameters, or checks
// them against the recorded ones. A nil p means "whatever the database
// holds, else minhash.DefaultParams"; the Params in use are returned.
func ensureParams(ctx context.Context, tx pgx.Tx, p *minhash.Params) (minhash.Params, error) {
	var stored string
	err := tx.QueryRow(ctx, `SELECT params FROM dedup_params WHERE id = 1`).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := lockAll(ctx, tx, []int64{paramsLock}); err != nil {
			return minhash.Params{}, err
		}
		err = tx.QueryRow(ctx, `SELECT params FROM dedup_params WHERE id = 1`).Scan(&stored)
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return minhash.Params{}, fmt.Errorf("read min-hash parameters: %w", err)
	}
	use, record, err := minhash.Stored(stored, p)
	if err != nil || record == "" {
		return use, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO dedup_params(id, params) VALUES (1, $1)`, record); err != nil {
		return minhash.Params{}, fmt.Errorf("record min-hash parameters: %w", err)
	}
	return use, nil
}

// keyLocks are the advisory lock keys of sig's key hashes.
func keyLocks(sig *minhash.Signature) []int64 {
	keys := sig.Keys()
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = int64(k.Hash())
	}
	return out
}

// CheckAndInsert implements minhash.Index.
func (x *MinhashIndex) CheckAndInsert(ctx context.Context, id int64, sig minhash.Signature) (int64, bool, error) {
	indexable, err := minhash.Admit(ctx, sig)
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if !indexable {
		return id, false, nil
	}
	var orig int64
	var dup bool
	err = x.s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockAll(ctx, tx, keyLocks(&sig)); err != nil {
			return err
		}
		var err error
		orig, dup, err = checkAndInsert(ctx, tx, id, &sig)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	return orig, dup, nil
}

// Lookup implements minhash.Index.
func (x *MinhashIndex) Lookup(ctx context.Context, sig minhash.Signature) (int64, bool, error) {
	indexable, err := minhash.Admit(ctx, sig)
	if err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	if !indexable {
		return 0, false, nil
	}
	orig, _, found, err := earliestMatch(ctx, x.s.pool, &sig)
	if err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	return orig, found, nil
}

// Remove implements minhash.Index.
func (x *MinhashIndex) Remove(ctx context.Context, id int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	err := x.s.inTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		var f [minhash.NumFeatures]int64
		err := tx.QueryRow(ctx, `SELECT seq, f0, f1, f2, f3, f4, f5 FROM dedup_pages WHERE page_id = $1`, id).
			Scan(&seq, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5])
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var sig minhash.Signature
		sig.Kind = minhash.KindShingled
		for i, v := range f {
			sig.Features[i] = uint64(v)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM dedup_keys WHERE seq = $1 AND hash = ANY($2)`, seq, keyLocks(&sig)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM dedup_pages WHERE seq = $1`, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	return nil
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// earliestMatch returns the earliest inserted page that shares a key with
// sig, confirming every hash match against the stored features.
func earliestMatch(ctx context.Context, q querier, sig *minhash.Signature) (id, seq int64, found bool, err error) {
	keys := sig.Keys()
	rows, err := q.Query(ctx, `SELECT k.hash, p.seq, p.page_id, p.f0, p.f1, p.f2, p.f3, p.f4, p.f5
		FROM dedup_keys k JOIN dedup_pages p ON p.seq = k.seq
		WHERE k.hash = ANY($1) ORDER BY p.seq`, keyLocks(sig))
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.Close()
	return minhash.FirstConfirmed(rows, keys)
}

// checkAndInsert is CheckAndInsert in the caller's transaction, which
// holds the locks of sig's keys, for a valid, indexable signature.
func checkAndInsert(ctx context.Context, tx pgx.Tx, id int64, sig *minhash.Signature) (int64, bool, error) {
	orig, _, found, err := earliestMatch(ctx, tx, sig)
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if found {
		return orig, orig != id, nil
	}
	var seq int64
	err = tx.QueryRow(ctx, `SELECT seq FROM dedup_pages WHERE page_id = $1`, id).Scan(&seq)
	if err == nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, minhash.ErrIDInUse)
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	f := &sig.Features
	if err := tx.QueryRow(ctx, `INSERT INTO dedup_pages(page_id, f0, f1, f2, f3, f4, f5) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq`,
		id, int64(f[0]), int64(f[1]), int64(f[2]), int64(f[3]), int64(f[4]), int64(f[5])).Scan(&seq); err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO dedup_keys(hash, seq) SELECT h, $2 FROM unnest($1::bigint[]) AS h ON CONFLICT DO NOTHING`,
		keyLocks(sig), seq); err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	return id, false, nil
}

// signers caches one immutable Signer per Params.
var signers sync.Map // minhash.Params → *minhash.Signer

func signerFor(p minhash.Params) (*minhash.Signer, error) {
	if s, ok := signers.Load(p); ok {
		return s.(*minhash.Signer), nil
	}
	s, err := minhash.NewSigner(p)
	if err != nil {
		return nil, err
	}
	signers.Store(p, s)
	return s, nil
}

// signature returns the signature to store with p and its encoding; a
// failed page has none. A successful page without a signature is signed
// here with the database's parameters.
func signature(params minhash.Params, p *crawler.Page) (minhash.Signature, []byte, error) {
	if p.Failure != "" {
		return minhash.Signature{}, nil, nil
	}
	sig := p.Signature
	if !sig.Indexable() && p.Text != "" {
		s, err := signerFor(params)
		if err != nil {
			return sig, nil, fmt.Errorf("sign text: %w", err)
		}
		sig = s.Sign(p.Text)
	}
	blob, err := sig.MarshalBinary()
	if err != nil {
		return sig, nil, err
	}
	return sig, blob, nil
}

// dedup checks the stored page id against the index and marks it a
// duplicate, or reports that it is to be made searchable (its search
// vector is written with its place in the crawl's order as the commit
// ends, so that the page's row is written once more, not twice). A
// successful page without a word to
// sign (an empty body, punctuation only) is compared by the SHA-256 of
// its body instead; a text of fewer words than a shingle has an exact
// signature, with keys, and goes through the index. The commit holds the
// locks of the page's keys, or of its body's hash (commitLocks).
func dedup(ctx context.Context, tx pgx.Tx, id int64, p *crawler.Page, sig minhash.Signature) (searchable bool, err error) {
	if p.Failure == "" && !sig.Indexable() && p.ContentHash != "" {
		var orig int64
		err := tx.QueryRow(ctx, `SELECT id FROM pages WHERE content_hash = $1 AND failure = '' AND duplicate_of IS NULL AND id <> $2
			ORDER BY id LIMIT 1`, p.ContentHash, id).Scan(&orig)
		switch {
		case err == nil:
			if _, err := tx.Exec(ctx, `UPDATE pages SET duplicate_of = $1 WHERE id = $2`, orig, id); err != nil {
				return false, fmt.Errorf("mark duplicate: %w", err)
			}
			return false, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return false, fmt.Errorf("exact duplicate: %w", err)
		}
	}
	if p.Failure != "" || strings.TrimSpace(p.Text) == "" {
		return false, nil
	}
	if sig.Indexable() {
		orig, dup, err := checkAndInsert(ctx, tx, id, &sig)
		if err != nil {
			return false, err
		}
		if dup {
			if _, err := tx.Exec(ctx, `UPDATE pages SET duplicate_of = $1 WHERE id = $2`, orig, id); err != nil {
				return false, fmt.Errorf("mark duplicate: %w", err)
			}
			return false, nil
		}
	}
	return true, nil
}

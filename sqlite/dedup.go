package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/minhash"
)

// MinhashIndex is the near-duplicate index of a database: a minhash.Index
// whose pages and keys live in the tables dedup_pages and dedup_keys, so
// that it survives restarts and is shared by every crawl of the database.
// The store's own Commit uses the same tables, with pages.id as page ids.
//
// Every key is stored as its minhash.Key.Hash next to the insertion rank
// of its page; a hash match is confirmed against the page's stored
// features, so hash collisions never make false duplicates. Each method
// runs in one immediate transaction, which makes a check and its insert
// atomic even between processes sharing the file.
type MinhashIndex struct {
	s      *Store
	params minhash.Params
	stmts  *indexStmts
}

// indexStmts are the index's statements, prepared once.
type indexStmts struct {
	match, byID, insPage, insKeys *sql.Stmt
}

// in returns the statements bound to tx.
func (st *indexStmts) in(ctx context.Context, tx *sql.Tx) *indexStmts {
	if st == nil {
		return nil
	}
	return &indexStmts{match: tx.StmtContext(ctx, st.match), byID: tx.StmtContext(ctx, st.byID),
		insPage: tx.StmtContext(ctx, st.insPage), insKeys: tx.StmtContext(ctx, st.insKeys)}
}

func prepareIndex(ctx context.Context, db interface {
	PrepareContext(context.Context, string) (*sql.Stmt, error)
}) (*indexStmts, error) {
	var st indexStmts
	var err error
	for _, q := range []struct {
		dst **sql.Stmt
		sql string
	}{{&st.match, matchQuery}, {&st.byID, byIDQuery}, {&st.insPage, insertPageQuery}, {&st.insKeys, insertKeysQuery}} {
		if *q.dst, err = db.PrepareContext(ctx, q.sql); err != nil {
			st.close()
			return nil, fmt.Errorf("prepare min-hash index: %w", err)
		}
	}
	return &st, nil
}

func (st *indexStmts) close() {
	for _, s := range []*sql.Stmt{st.match, st.byID, st.insPage, st.insKeys} {
		if s != nil {
			s.Close()
		}
	}
}

var _ minhash.Index = (*MinhashIndex)(nil)

// MinhashIndex returns the database's near-duplicate index for signatures
// made with p. The first call on a database records p.MarshalText; a later
// call with different Params fails with an error wrapping
// minhash.ErrParams, because signatures of different Params cannot be
// compared.
func (s *Store) MinhashIndex(ctx context.Context, p minhash.Params) (*MinhashIndex, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("open min-hash index: %w", err)
	}
	defer tx.Rollback()
	if _, err := ensureParams(ctx, tx, &p); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("open min-hash index: %w", err)
	}
	stmts, err := prepareIndex(ctx, s.db)
	if err != nil {
		return nil, err
	}
	return &MinhashIndex{s: s, params: p, stmts: stmts}, nil
}

// Close releases the index's prepared statements. The Store stays open.
func (x *MinhashIndex) Close() error {
	x.stmts.close()
	return nil
}

// Params returns the parameters the index was opened with.
func (x *MinhashIndex) Params() minhash.Params { return x.params }

// ensureParams records *p as the database's min-hash parameters, or checks
// them against the recorded ones. A nil p means "whatever the database
// holds, else minhash.DefaultParams"; the Params in use are returned.
func ensureParams(ctx context.Context, tx *sql.Tx, p *minhash.Params) (minhash.Params, error) {
	var stored string
	err := tx.QueryRowContext(ctx, `SELECT params FROM dedup_params WHERE id = 1`).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return minhash.Params{}, fmt.Errorf("read min-hash parameters: %w", err)
	}
	use, record, err := minhash.Stored(stored, p)
	if err != nil || record == "" {
		return use, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO dedup_params(id, params) VALUES (1, ?)`, record); err != nil {
		return minhash.Params{}, fmt.Errorf("record min-hash parameters: %w", err)
	}
	return use, nil
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
	tx, err := x.s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	defer tx.Rollback()
	orig, dup, err := checkAndInsert(ctx, x.stmts.in(ctx, tx), id, &sig)
	if err != nil {
		return 0, false, err
	}
	if err := tx.Commit(); err != nil {
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
	tx, err := x.s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	defer tx.Rollback()
	orig, _, found, err := earliestMatch(ctx, x.stmts.in(ctx, tx).match, &sig)
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
	tx, err := x.s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	defer tx.Rollback()
	if err := removeIndexed(ctx, tx, id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	return nil
}

// matchQuery finds the indexed pages holding any of the 15 key hashes,
// earliest first.
var matchQuery = `SELECT k.hash, p.seq, p.page_id, p.f0, p.f1, p.f2, p.f3, p.f4, p.f5
	FROM dedup_keys k JOIN dedup_pages p ON p.seq = k.seq
	WHERE k.hash IN (?` + strings.Repeat(", ?", minhash.NumKeys-1) + `) ORDER BY p.seq`

const (
	byIDQuery       = `SELECT seq FROM dedup_pages WHERE page_id = ?`
	insertPageQuery = `INSERT INTO dedup_pages(page_id, f0, f1, f2, f3, f4, f5) VALUES (?, ?, ?, ?, ?, ?, ?)`
)

var insertKeysQuery = `INSERT OR IGNORE INTO dedup_keys(hash, seq) VALUES (?, ?)` + strings.Repeat(", (?, ?)", minhash.NumKeys-1)

// earliestMatch returns the earliest inserted page that shares a key with
// sig, confirming every hash match against the stored features.
func earliestMatch(ctx context.Context, match *sql.Stmt, sig *minhash.Signature) (id, seq int64, found bool, err error) {
	keys := sig.Keys()
	var args [minhash.NumKeys]any
	for i, k := range keys {
		args[i] = int64(k.Hash())
	}
	rows, err := match.QueryContext(ctx, args[:]...)
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.Close()
	return minhash.FirstConfirmed(rows, keys)
}

// checkAndInsert is CheckAndInsert with statements of the caller's
// transaction, for a valid, indexable signature.
func checkAndInsert(ctx context.Context, st *indexStmts, id int64, sig *minhash.Signature) (int64, bool, error) {
	orig, _, found, err := earliestMatch(ctx, st.match, sig)
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if found {
		return orig, orig != id, nil
	}
	var seq int64
	err = st.byID.QueryRowContext(ctx, id).Scan(&seq)
	if err == nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, minhash.ErrIDInUse)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	f := &sig.Features
	res, err := st.insPage.ExecContext(ctx, id, int64(f[0]), int64(f[1]), int64(f[2]), int64(f[3]), int64(f[4]), int64(f[5]))
	if err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	if seq, err = res.LastInsertId(); err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	var args [2 * minhash.NumKeys]any
	for i, k := range sig.Keys() {
		args[2*i], args[2*i+1] = int64(k.Hash()), seq
	}
	if _, err := st.insKeys.ExecContext(ctx, args[:]...); err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	return id, false, nil
}

// removeIndexed takes page id out of the index tables.
func removeIndexed(ctx context.Context, tx *sql.Tx, id int64) error {
	var sig minhash.Signature
	var seq int64
	var f [minhash.NumFeatures]int64
	err := tx.QueryRowContext(ctx, `SELECT seq, f0, f1, f2, f3, f4, f5 FROM dedup_pages WHERE page_id = ?`, id).
		Scan(&seq, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5])
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	for i, v := range f {
		sig.Features[i] = uint64(v)
	}
	for _, k := range sig.Keys() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dedup_keys WHERE hash = ? AND seq = ?`, int64(k.Hash()), seq); err != nil {
			return fmt.Errorf("remove page %d: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM dedup_pages WHERE seq = ?`, seq); err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	return nil
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

// dedupBatch checks the pages of one Commit for near-duplicates and fills
// the search index, inside the Commit's transaction.
type dedupBatch struct {
	tx     *sql.Tx
	params minhash.Params
	stmts  *indexStmts
	setDup *sql.Stmt
	index  *sql.Stmt
}

// newDedupBatch prepares the checks of one commit; known, if not nil,
// are the database's min-hash parameters as read before (they never
// change once stored).
func newDedupBatch(ctx context.Context, tx cachedTx, known *minhash.Params) (*dedupBatch, error) {
	var p minhash.Params
	var err error
	if known != nil {
		p = *known
	} else if p, err = ensureParams(ctx, tx.Tx, nil); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	d := &dedupBatch{tx: tx.Tx, params: p}
	if d.stmts, err = prepareIndex(ctx, tx); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	if d.setDup, err = tx.PrepareContext(ctx, `UPDATE pages SET duplicate_of = ? WHERE id = ?`); err != nil {
		d.stmts.close()
		return nil, fmt.Errorf("commit: %w", err)
	}
	if d.index, err = tx.PrepareContext(ctx, `INSERT INTO search(docid, title, text) VALUES (?, ?, ?)`); err != nil {
		d.setDup.Close()
		d.stmts.close()
		return nil, fmt.Errorf("commit: %w", err)
	}
	return d, nil
}

func (d *dedupBatch) close() {
	d.setDup.Close()
	d.index.Close()
	d.stmts.close()
}

// checked reports whether p takes part in near-duplicate detection and
// search: a successful page with text.
func checked(p *crawler.Page) bool {
	return p.Failure == "" && strings.TrimSpace(p.Text) != ""
}

// signature returns the signature of p that near-duplicate detection
// uses; a failed page has none. A successful page without a signature
// is signed here.
func (d *dedupBatch) signature(p *crawler.Page) (minhash.Signature, error) {
	if p.Failure != "" {
		return minhash.Signature{}, nil
	}
	sig := p.Signature
	if !sig.Indexable() && p.Text != "" {
		s, err := signerFor(d.params)
		if err != nil {
			return sig, fmt.Errorf("sign text: %w", err)
		}
		sig = s.Sign(p.Text)
	}
	if err := sig.Validate(); err != nil {
		return sig, err
	}
	return sig, nil
}

// Signature returns the min-hash signature of a stored page: that of
// its text with the database's min-hash parameters, as the crawler made
// it (crawler.Page.Signature); the zero Signature for a failed page.
func (s *Store) Signature(ctx context.Context, page int64) (minhash.Signature, error) {
	var failure string
	var text textColumn
	err := s.db.QueryRowContext(ctx, `SELECT failure, text FROM pages WHERE id = ?`, page).Scan(&failure, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return minhash.Signature{}, fmt.Errorf("signature of page %d: no such page", page)
	}
	if err != nil {
		return minhash.Signature{}, fmt.Errorf("signature of page %d: %w", page, err)
	}
	if failure != "" {
		return minhash.Signature{}, nil
	}
	params, err := s.MinhashParams(ctx)
	if err != nil {
		return minhash.Signature{}, fmt.Errorf("signature of page %d: %w", page, err)
	}
	signer, err := signerFor(params)
	if err != nil {
		return minhash.Signature{}, fmt.Errorf("signature of page %d: %w", page, err)
	}
	return signer.Sign(text.S), nil
}

// add checks the stored page id against the index and marks it duplicate,
// or indexes it for search. A successful page without a word to sign
// (an empty body, punctuation only, a frame set) is compared by the
// SHA-256 of its body instead: the earliest stored page with the same
// bytes that is not itself a duplicate is its original. A text shorter
// than a shingle has an exact signature with keys, and goes by them.
func (d *dedupBatch) add(ctx context.Context, id int64, p *crawler.Page, sig minhash.Signature) error {
	if p.Failure == "" && !sig.Indexable() && p.ContentHash != "" {
		var orig int64
		err := d.tx.QueryRowContext(ctx, `SELECT id FROM pages WHERE content_hash = ? AND failure = '' AND duplicate_of IS NULL AND id <> ?
			ORDER BY id LIMIT 1`, p.ContentHash, id).Scan(&orig)
		switch {
		case err == nil:
			if _, err := d.setDup.ExecContext(ctx, orig, id); err != nil {
				return fmt.Errorf("mark duplicate: %w", err)
			}
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("exact duplicate: %w", err)
		}
	}
	if !checked(p) {
		return nil
	}
	if sig.Indexable() {
		orig, dup, err := checkAndInsert(ctx, d.stmts, id, &sig)
		if err != nil {
			return err
		}
		if dup {
			if _, err := d.setDup.ExecContext(ctx, orig, id); err != nil {
				return fmt.Errorf("mark duplicate: %w", err)
			}
			return nil
		}
	}
	if _, err := d.index.ExecContext(ctx, id, p.Title, p.Text); err != nil {
		return fmt.Errorf("index for search: %w", err)
	}
	return nil
}

// TextRow is a stored successful page with its text, as EachText reads it.
type TextRow struct {
	ID    int64
	Crawl string
	URL   string
	Title string
	Text  string
	// DuplicateOf is the id of the page's original as decided when it was
	// stored, or 0.
	DuplicateOf int64
}

// EachText calls fn for every successful page with non-empty text, of the
// crawl with id crawl or of all crawls when crawl is 0, in the order the
// pages were stored: the order in which Commit decided which page of a
// group of near-duplicates is the original. Rows are streamed.
func (s *Store) EachText(ctx context.Context, crawl int64, fn func(*TextRow) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT p.id, c.name, `+pageURLColumn+`, p.title, p.text, COALESCE(p.duplicate_of, 0)
		FROM pages p JOIN crawls c ON c.id = p.crawl_id
		WHERE p.failure = '' AND p.text <> '' AND (?1 = 0 OR p.crawl_id = ?1) ORDER BY p.id`, crawl)
	if err != nil {
		return fmt.Errorf("read page texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r TextRow
		var text textColumn
		if err := rows.Scan(&r.ID, &r.Crawl, &r.URL, &r.Title, &text, &r.DuplicateOf); err != nil {
			return fmt.Errorf("read page texts: %w", err)
		}
		r.Text = text.S
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// MinhashParams returns the min-hash parameters recorded in the database,
// or minhash.DefaultParams when none are recorded yet (the ones Commit
// would record).
func (s *Store) MinhashParams(ctx context.Context) (minhash.Params, error) {
	var stored string
	err := s.db.QueryRowContext(ctx, `SELECT params FROM dedup_params WHERE id = 1`).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return minhash.DefaultParams(), nil
	}
	if err != nil {
		return minhash.Params{}, fmt.Errorf("read min-hash parameters: %w", err)
	}
	var p minhash.Params
	if err := p.UnmarshalText([]byte(stored)); err != nil {
		return minhash.Params{}, fmt.Errorf("min-hash parameters of the database: %w", err)
	}
	return p, nil
}

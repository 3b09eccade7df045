package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache holds statements prepared once on the database; transactions
// use them through cachedTx, so the hot paths (Pop, Commit) do not parse
// their SQL again for every call.
//
// The store has a single connection, held by a transaction while it runs,
// so a statement cannot be prepared on the database from inside one: a
// query first seen in a transaction is prepared on the transaction, noted,
// and prepared on the database when the next transaction begins.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	wanted map[string]bool
}

// lookup returns the cached statement for query, noting it when absent.
func (c *stmtCache) lookup(query string) (*sql.Stmt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, true
	}
	if c.wanted == nil {
		c.wanted = make(map[string]bool)
	}
	c.wanted[query] = true
	return nil, false
}

// prepareWanted prepares the noted queries; no transaction may be open.
func (c *stmtCache) prepareWanted(ctx context.Context, db *sql.DB) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q := range c.wanted {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		if c.m == nil {
			c.m = make(map[string]*sql.Stmt)
		}
		c.m[q] = st
		delete(c.wanted, q)
	}
	return nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// cachedTx is a transaction whose PrepareContext returns the store's
// cached statement bound to the transaction.
type cachedTx struct {
	*sql.Tx
	s    *Store
	call *call // the call in the store's group, nil outside one
}

// begin begins a write transaction: a call in the store's group when
// it groups its commits (group.go), else a transaction of its own.
func (s *Store) begin(ctx context.Context) (cachedTx, error) {
	s.group.mu.Lock()
	if s.group.every > 0 {
		return s.enter(ctx)
	}
	undone := s.group.err
	s.group.mu.Unlock()
	if undone != nil {
		return cachedTx{}, undone
	}
	if err := s.stmts.prepareWanted(ctx, s.db); err != nil {
		return cachedTx{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return cachedTx{}, err
	}
	return cachedTx{Tx: tx, s: s}, nil
}

// Commit commits the transaction, or ends the call in the store's
// group (which commits the group when it is due).
func (t cachedTx) Commit() error {
	if t.call != nil {
		return t.leave(true)
	}
	return t.Tx.Commit()
}

// Rollback rolls the transaction back; in the store's group it undoes
// the whole group, once the call has not ended with Commit.
func (t cachedTx) Rollback() error {
	if t.call != nil {
		return t.leave(false)
	}
	return t.Tx.Rollback()
}

// query runs a cached query within the transaction. The statement bound
// to the transaction outlives its rows: it is closed when the
// transaction ends (in the store's group, at the group's commit).
func (t cachedTx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := t.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// PrepareContext returns the cached statement for query within the
// transaction. Closing it does not close the cached statement.
func (t cachedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := t.s.stmts.lookup(query); ok {
		return t.Tx.StmtContext(ctx, st), nil
	}
	return t.Tx.PrepareContext(ctx, query)
}

// exec runs a cached statement.
func (t cachedTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.ExecContext(ctx, args...)
}

// queryRow runs a cached single-row query.
func (t cachedTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := t.PrepareContext(ctx, query)
	if err != nil {
		return t.Tx.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// queryCached runs a cached query outside any transaction.
func (s *Store) queryCached(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := s.stmts.prepareWanted(ctx, s.db); err != nil {
		return nil, err
	}
	if st, ok := s.stmts.lookup(query); ok {
		return st.QueryContext(ctx, args...)
	}
	return s.db.QueryContext(ctx, query, args...)
}

// queryRowCached runs a cached single-row query outside any transaction.
func (s *Store) queryRowCached(ctx context.Context, query string, args ...any) *sql.Row {
	if err := s.stmts.prepareWanted(ctx, s.db); err == nil {
		if st, ok := s.stmts.lookup(query); ok {
			return st.QueryRowContext(ctx, args...)
		}
	}
	return s.db.QueryRowContext(ctx, query, args...)
}

// reader runs the reads of a hot path (Pop, FrontierSizes): within the
// store's group when it groups its commits (its open transaction holds
// the one connection), else on the database with cached statements.
type reader interface {
	query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	queryRow(ctx context.Context, query string, args ...any) *sql.Row
}

type dbReader struct{ s *Store }

func (r dbReader) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.s.queryCached(ctx, query, args...)
}

func (r dbReader) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return r.s.queryRowCached(ctx, query, args...)
}

// read returns the reader of a hot path's reads and the function that
// ends them (a call in the store's group ends with it).
func (s *Store) read(ctx context.Context) (reader, func(), error) {
	s.group.mu.Lock()
	if s.group.every == 0 {
		s.group.mu.Unlock()
		return dbReader{s}, func() {}, nil
	}
	tx, err := s.enter(ctx)
	if err != nil {
		return nil, nil, err
	}
	return tx, func() { _ = tx.Commit() }, nil
}

package postgres

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrServerLost is what a store operation returns when the database
// server stayed unreachable for Options.MaxOutage: the crawl stops, and
// the same command resumes it once the server is back.
var ErrServerLost = errors.New("lost the database server")

// Reconnecting. A server restart, a failover, an administrator's
// shutdown of the sessions (57P01) or a server still starting (57P03)
// closes the pool's connections or refuses new ones. An operation that
// fails so is run again, through the pool, which drops its broken
// connections and opens new ones, after a pause growing from
// retryFirst to retryMax, until Options.MaxOutage has passed since the
// first failure; then it fails with ErrServerLost.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 2 * time.Second
)

// connLost reports whether err means the connection to the server was
// lost or could not be made, rather than a statement's own failure.
func connLost(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true // no connection made, a connect timeout included
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller's end, told by its ctx
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin shutdown, crash shutdown, cannot connect now
			return true
		}
		return false
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.ECONNABORTED):
		return true
	}
	// pgx's words for a connection it closed after such a failure.
	return strings.Contains(err.Error(), "conn closed")
}

// deadlocked reports whether PostgreSQL aborted a transaction for a
// deadlock or a serialization failure: run again, it may succeed.
func deadlocked(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// outage follows one operation through a loss of the server.
type outage struct {
	s     *Store
	since time.Time // first failure; zero while none
	pause time.Duration
}

// again reports whether the operation that failed with err is to be run
// again after connection loss, having slept; otherwise it returns the
// error to give (ErrServerLost once the bound passed). An error of the
// statement's own (no row, a constraint) is the server's answer: it ends
// the outage as a success does.
func (o *outage) again(ctx context.Context, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, err
	}
	if !connLost(err) {
		o.done()
		return false, err
	}
	now := time.Now()
	if o.since.IsZero() {
		o.since, o.pause = now, retryFirst
		o.s.lost(err)
	}
	if o.s.opts.MaxOutage < 0 || now.Sub(o.since) >= o.s.opts.MaxOutage {
		return false, fmt.Errorf("%w: no connection for %s (%v); run the same command again once the server is back",
			ErrServerLost, now.Sub(o.since).Round(time.Second), connectFailure(err))
	}
	pause := min(o.pause, o.since.Add(o.s.opts.MaxOutage).Sub(now))
	o.pause = min(2*o.pause, retryMax)
	select {
	case <-ctx.Done():
		return false, err
	case <-time.After(pause):
	}
	return true, nil
}

// done ends the outage of an operation that succeeded at last.
func (o *outage) done() {
	if !o.since.IsZero() {
		o.s.found()
	}
}

// lost notes, once an outage, that the server is lost.
func (s *Store) lost(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.downSince.IsZero() {
		return
	}
	s.downSince = time.Now()
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "database server lost (%v); reconnecting for up to %s\n", err, s.opts.MaxOutage)
	}
}

// found notes that the server answers again.
func (s *Store) found() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.downSince.IsZero() {
		return
	}
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "database server back after %s\n", time.Since(s.downSince).Round(100*time.Millisecond))
	}
	s.downSince = time.Time{}
}

// retry runs op, a read or a write that is harmless to repeat (a single
// upsert, an update setting values), again while the connection is lost
// (see outage).
func (s *Store) retry(ctx context.Context, op func() error) error {
	o := outage{s: s}
	for {
		err := op()
		if err == nil {
			o.done()
			return nil
		}
		again, err := o.again(ctx, err)
		if !again {
			return err
		}
	}
}

// inTx runs fn in a transaction, again from the start when PostgreSQL
// aborts it for a deadlock or a serialization failure (processes sharing
// a crawl may lock the same rows in different orders; up to 8 times) and
// while the connection to the server is lost (see outage).
//
// Commit outcome. A connection lost during COMMIT leaves unknown whether
// the transaction committed. Every transaction of inTx therefore first
// inserts a token of its own into tx_tokens, the same in each of its
// attempts: when an earlier attempt committed, the token is there and the
// next attempt's insert fails with a unique violation (after waiting, if
// the server still runs the earlier attempt, until it ends); inTx then
// returns nil without running fn again. So fn runs to a commit at most
// once, whatever the transaction writes, and what fn set aside for its
// caller in the attempt that committed stays as it was. fn must reset
// such results at its start, for attempts that did not commit.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	token, err := newToken()
	if err != nil {
		return err
	}
	o := outage{s: s}
	deadlocks := 0
	committed := false // an attempt sent COMMIT and lost its answer
	for {
		err := s.tryTx(ctx, token, committed, fn)
		if errors.Is(err, errCommitSent) {
			committed, err = true, errors.Unwrap(err)
		}
		if errors.Is(err, errTokenTaken) {
			// No attempt got as far as COMMIT: the token is another
			// transaction's (a chance of one in 2^64 per token kept).
			if token, err = newToken(); err != nil {
				return err
			}
			continue
		}
		switch {
		case err == nil:
			o.done()
			return nil
		case deadlocked(err) && deadlocks < 7:
			deadlocks++
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Duration(deadlocks) * 5 * time.Millisecond):
			}
			continue
		}
		again, err := o.again(ctx, err)
		if !again {
			return err
		}
	}
}

// Errors of tryTx: errCommitSent wraps the error of a COMMIT sent whose
// answer was lost; errTokenTaken is a token found taken when no attempt
// had sent COMMIT.
var (
	errCommitSent = errors.New("commit sent")
	errTokenTaken = errors.New("transaction token taken")
)

type commitSentError struct{ err error }

func (e commitSentError) Error() string        { return e.err.Error() }
func (e commitSentError) Unwrap() error        { return e.err }
func (e commitSentError) Is(target error) bool { return target == errCommitSent }

func (s *Store) tryTx(ctx context.Context, token int64, committed bool, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	_, err = tx.Exec(ctx, `INSERT INTO tx_tokens(token, keep_until) VALUES ($1, now() + $2::interval)`, token, s.tokenKeep())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		if !committed {
			return errTokenTaken
		}
		return nil // an earlier attempt committed
	}
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return commitSentError{err}
	}
	s.mu.Lock()
	lose := s.afterCommit
	s.afterCommit = nil
	s.mu.Unlock()
	if lose != nil {
		return commitSentError{lose()} // a test's lost answer to COMMIT
	}
	return nil
}

// tokenKeep is how long a transaction's token is kept: past the longest
// a retry may still come (Options.MaxOutage), with an hour to spare.
func (s *Store) tokenKeep() string {
	return (max(s.opts.MaxOutage, 0) + time.Hour).String()
}

// sweepTokens deletes the tokens no retry can ask about any more.
func (s *Store) sweepTokens(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM tx_tokens WHERE keep_until < now()`)
	return err
}

func newToken() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

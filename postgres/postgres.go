package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/scent-crawler/scent/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Options are the settings of a Store; the zero value is ready to use.
type Options struct {
	// LeaseExpiry is how long the URLs leased by a process stay leased
	// after its last heartbeat (every LeaseExpiry/3): a process killed
	// without closing its store loses its leases to the others after at
	// most this long. Default 30s.
	LeaseExpiry time.Duration
	// HostDelay is the least time between two leases of URLs of one host,
	// across every process of a crawl (the shared per-host next-allowed
	// time); 0 leaves politeness to each process's fetcher.
	HostDelay time.Duration
	// Budget bounds the successful pages of a crawl across all its
	// processes: a Pop leases no more URLs than the budget minus the
	// successful pages and the URLs leased. 0 means no bound.
	Budget int
	// Existing opens only a database that holds scent's tables already
	// (a reader's, or a revisit's, of a crawl stored before): an empty
	// one is refused, not given them (ErrNoCrawls). Its schema is still
	// brought up to date.
	Existing bool
	// MaxOutage is how long an operation waits for a database server it
	// lost (restarted, failed over, shut the session down, refused new
	// connections, reset the connection), reconnecting through the pool
	// with a growing pause (0.1s to 2s), before it fails with
	// ErrServerLost. Default 1 minute; negative: it fails at once.
	MaxOutage time.Duration
	// Log, when set, is told when the server is lost and found again, one
	// line each.
	Log io.Writer
}

// ErrNoCrawls is what Open with Options.Existing returns for a database
// that holds no scent tables.
var ErrNoCrawls = errors.New("the database holds no scent crawl (no scent tables)")

// ErrNotScent is what Open returns for a database that holds tables of
// another program and none of scent's: scent adds none to it.
var ErrNotScent = errors.New("not a scent database")

// Store is a crawl store in a PostgreSQL database, shared by any number of
// processes. It implements crawler.Store, crawler.URLLookup,
// crawler.SharedFrontier and revisit.WatchStore.
type Store struct {
	pool *pgxpool.Pool
	opts Options
	id   string // this store's random id; its holders are id/crawl

	mu        sync.Mutex
	downSince time.Time        // the server lost since, or zero
	holders   map[int64]string // crawl → holder id
	caps      map[int64]frontierCaps
	stop      chan struct{}
	done      chan struct{}
	// The URLs this store has stored, and how many it will have stored
	// when it next has the tables analyzed (keepStatistics); noAnalyze:
	// tests, it never does (BenchmarkStore_push's stale statistics).
	stored, analyzeAt int
	noAnalyze         bool

	afterCommit func() error // tests: the error a commit's answer turns into (under mu)
}

// ErrNotPostgres is returned by Open for an address that is not a
// PostgreSQL URL.
var ErrNotPostgres = errors.New("not a postgres:// or postgresql:// URL")

// IsURL reports whether db names a PostgreSQL database rather than a
// file: it starts with postgres:// or postgresql://.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Open connects to the database at url (postgres://user@host:port/db),
// creating or upgrading its schema. A database written by a newer scent
// is refused with a clear error.
//
// The store's sessions run with synchronous_commit off unless the URL
// sets it (…?synchronous_commit=on): a transaction holds its row locks
// (the crawl's counters) only until the server has it in memory, not
// through the disk's flush, so the processes of a crawl do not queue
// behind each other's flushes. A crash of the server then loses its last
// fraction of a second of commits, whole: their URLs are leased or
// waiting again and are fetched again; nothing is left half-done.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	if !IsURL(url) {
		return nil, fmt.Errorf("open %q: %w", url, ErrNotPostgres)
	}
	if o.LeaseExpiry <= 0 {
		o.LeaseExpiry = 30 * time.Second
	}
	if o.MaxOutage == 0 {
		o.MaxOutage = time.Minute
	}
	if o.HostDelay < 0 || o.Budget < 0 {
		return nil, errors.New("open store: negative host delay or budget")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redact(url), err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// A server gone from the network must not hold a reconnection
		// for the kernel's minutes.
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["synchronous_commit"]; !ok {
		cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redact(url), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", redact(url), connectFailure(err))
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, opts: o, id: hex.EncodeToString(b[:]),
		holders: make(map[int64]string), caps: make(map[int64]frontierCaps)}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.sweepTokens(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", redact(url), err)
	}
	return s, nil
}

// connectFailure is why a connection could not be made, without the
// list of every attempt pgx gives (one per address and TLS mode:
// sslmode=prefer, the default, tries TLS first, and "server refused TLS
// connection" is no reason): the server's answer when one came
// (database does not exist, password authentication failed), else the
// first network error.
func connectFailure(err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Errorf("server %s answered: %w", ce.Config.Host, pe)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe
	}
	return err
}

// redact hides the password of a database URL in messages.
func redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 {
		return url
	}
	user := url[scheme+3 : at]
	if name, _, ok := strings.Cut(user, ":"); ok {
		return url[:scheme+3] + name + ":…" + url[at:]
	}
	return url
}

// Close gives the URLs this store leased and did not commit back to their
// stacks, leaves its crawls and closes the connections.
func (s *Store) Close() error {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	holders := make(map[int64]string, len(s.holders))
	for c, h := range s.holders {
		holders[c] = h
	}
	s.mu.Unlock()
	if stop != nil {
		close(stop)
		<-s.done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var firstErr error
	for crawl, h := range holders {
		if err := s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := requeue(ctx, tx, crawl, `holder = $2`, h); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `DELETE FROM holders WHERE id = $1`, h)
			return err
		}); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("release leases of crawl %d: %w", crawl, err)
		}
	}
	s.pool.Close()
	return firstErr
}

// Pool returns the connection pool, for read-only queries of tools and
// tests.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// lockKey maps a string to an advisory lock key.
func lockKey(parts ...string) int64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return int64(h.Sum64())
}

// lockAll takes the transaction-scoped advisory locks keys, in ascending
// order so that two transactions never wait on each other's.
func lockAll(ctx context.Context, tx pgx.Tx, keys []int64) error {
	if len(keys) == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	uniq := keys[:1]
	for _, k := range keys[1:] {
		if k != uniq[len(uniq)-1] {
			uniq = append(uniq, k)
		}
	}
	_, err := tx.Exec(ctx, `SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) WITH ORDINALITY AS t(k, i)`, uniq)
	return err
}

func migrations() ([]migrate.Migration, error) {
	return migrate.Read(migrationFS, "migrations")
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// migrationLock is the advisory lock that makes processes starting at
// once apply the migrations one after the other.
var migrationLock = lockKey("scent schema migrations")

// migrate applies the migrations the database lacks, in order, one
// transaction each, recording the version in scent_schema.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	var ours bool
	var others []string
	if err := conn.QueryRow(ctx, `SELECT to_regclass('scent_schema') IS NOT NULL,
		ARRAY(SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name LIMIT 6)`).Scan(&ours, &others); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	switch {
	case !ours && len(others) > 0:
		return fmt.Errorf("%w: it holds tables of another program (%s); give a database of its own (createdb)", ErrNotScent, strings.Join(others, ", "))
	case !ours && s.opts.Existing:
		return ErrNoCrawls
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS scent_schema (version integer NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var cur int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM scent_schema`).Scan(&cur); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if cur > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this scent understands (%d); use a newer scent", cur, len(ms))
	}
	for _, m := range ms[cur:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `DELETE FROM scent_schema; INSERT INTO scent_schema VALUES (`+strconv.Itoa(m.Version)+`)`)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// holderOf returns this store's holder id of crawl.
func (s *Store) holderOf(crawl int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holders[crawl]
}

// join registers this store as a holder of crawl and starts the heartbeat
// that keeps its leases.
func (s *Store) join(ctx context.Context, tx pgx.Tx, crawl int64) (string, error) {
	h := s.id + "/" + strconv.FormatInt(crawl, 10)
	host, _ := os.Hostname()
	_, err := tx.Exec(ctx, `INSERT INTO holders(id, crawl_id, host, pid, expires_at) VALUES ($1, $2, $3, $4, now() + $5::interval)
		ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`,
		h, crawl, host, os.Getpid(), s.opts.LeaseExpiry.String())
	if err != nil {
		return "", fmt.Errorf("join crawl %d: %w", crawl, err)
	}
	return h, nil
}

// started records holder h of crawl once its transaction committed.
func (s *Store) started(crawl int64, h string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holders[crawl] = h
	if s.stop == nil {
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		go s.heartbeat(s.stop, s.done)
	}
}

// heartbeat renews this store's holders every LeaseExpiry/3 until stop is
// closed. A holder found gone (the process stalled past its expiry and
// its leases went to others) is entered again.
func (s *Store) heartbeat(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(s.opts.LeaseExpiry / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		holders := make(map[int64]string, len(s.holders))
		for c, h := range s.holders {
			holders[c] = h
		}
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.LeaseExpiry/3)
		for crawl := range holders {
			s.inTx(ctx, func(tx pgx.Tx) error {
				_, err := s.join(ctx, tx, crawl)
				return err
			})
		}
		s.sweepTokens(ctx)
		cancel()
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/internal/migrate"
	"github.com/scent-crawler/scent/minhash"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is a scent database.
type Store struct {
	db    *sql.DB
	path  string
	ords  map[int64]int          // next fetch order per open crawl
	caps  map[int64]frontierCaps // frontier bounds per open crawl
	stmts stmtCache
	lease leases
	pops  pops // what Pop took and the next write transaction writes
	group group

	// Read once by Commit: the topics of each crawl (the order of page
	// scores) and the database's min-hash parameters.
	topics map[int64][]string
	params *minhash.Params

	// skippedLog is the size of the write-ahead log a read-only open
	// could not read (SkippedLog).
	skippedLog int64
}

// pageSize is the SQLite page size of a new database, in bytes. A
// stored page's row (its compressed text and links, a few kilobytes)
// fits in one page of this size, where it would often spill over to
// partly filled overflow pages in pages of the default 4 KiB.
var pageSize = 16384

// Open opens (creating if needed) the database at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	q := url.Values{}
	q.Set("_synchronous", "NORMAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	// database/sql hands the connection to one goroutine at a time, so
	// SQLite's own per-connection mutexes only cost: a crawl ran 3 to 4
	// % faster without them.
	q.Set("_mutex", "no")
	dsn := fileURI(path, q)
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// One connection: the crawler is the only writer, and SQLite serializes
	// writers anyway; this avoids SQLITE_BUSY between our own connections.
	db.SetMaxOpenConns(1)
	// The page size of a new database is set before WAL mode, which
	// fixes it; both are kept in the file (an existing database keeps
	// its own page size).
	for _, pragma := range []string{"PRAGMA page_size = " + strconv.Itoa(pageSize), "PRAGMA journal_mode = WAL"} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			db.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	s := &Store{db: db, path: path, ords: make(map[int64]int), caps: make(map[int64]frontierCaps), topics: make(map[int64][]string)}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	var errs []error
	if err := s.GroupCommits(context.Background(), 0); err != nil {
		errs = append(errs, fmt.Errorf("close: %w", err))
	}
	for _, crawl := range s.pops.pending() {
		if err := s.writePops(context.Background(), crawl); err != nil {
			errs = append(errs, fmt.Errorf("close: %w", err))
		}
	}
	s.releaseLeases()
	s.stmts.close()
	return errors.Join(append(errs, s.db.Close())...)
}

// DB returns the underlying database for read-only queries of other
// packages' tests and tools.
func (s *Store) DB() *sql.DB { return s.db }

func migrations() ([]migrate.Migration, error) {
	return migrate.Read(migrationFS, "migrations")
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// migrationSteps are the parts of migrations that SQL cannot do, run in
// the migration's transaction after its SQL.
var migrationSteps = map[int]func(context.Context, *sql.Tx) error{
	10: convertLinks,
	13: compressTexts,
}

// checkMigratable returns the database's schema version, or why migrate
// refuses it: a schema newer than this scent's, or, with none, another
// program's tables (ErrNotScent).
func (s *Store) checkMigratable(ctx context.Context) (int, error) {
	cur, err := schemaVersion(ctx, s.db)
	if err != nil {
		return 0, err
	}
	if n := SchemaVersion(); cur > n {
		return 0, errNewerSchema(cur, n)
	}
	if cur == 0 {
		if err := s.checkForeign(ctx); err != nil {
			return 0, err
		}
	}
	return cur, nil
}

// errNewerSchema is the refusal of a database written by a newer scent.
func errNewerSchema(cur, n int) error {
	return fmt.Errorf("database schema version %d is newer than this scent understands (%d); use a newer scent", cur, n)
}

func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	cur, err := s.checkMigratable(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms[cur:] {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if step := migrationSteps[m.Version]; step != nil {
			if err := step(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// uriEscaper escapes what SQLite's URI filenames (and the driver, which
// takes its own parameters from after the first '?') read otherwise in
// a path: a '?' starts the parameters, a '#' the fragment, a '%' an
// escape.
var uriEscaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// fileURI is the driver's name for the database file at path with the
// parameters q: the file at that very path, whatever its characters.
func fileURI(path string, q url.Values) string {
	return "file:" + uriEscaper.Replace(path) + "?" + q.Encode()
}

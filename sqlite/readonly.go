package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// ErrNotScent means a file is an SQLite database of some other program:
// scent neither reads it nor adds its tables to it.
var ErrNotScent = errors.New("not a scent database")

// ErrNotSQLite means a file is not an SQLite database at all.
var ErrNotSQLite = errors.New("not an SQLite database")

// ErrOldSchema means a database's schema is older than this scent reads:
// Upgrade, or any command that writes to it, brings it up to date.
var ErrOldSchema = errors.New("schema older than this scent reads")

// OpenReadOnly opens the existing database at path for reading only: it
// never writes to the file, creates no table in it and works on a file or
// in a directory the user cannot write. It fails when the file is missing,
// is not a scent database, or has a schema older than this scent reads
// (ErrOldSchema: Upgrade, or a command that writes, upgrades it).
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db, immutable, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, ords: make(map[int64]int), caps: make(map[int64]frontierCaps)}
	if fi, err := os.Stat(path + "-wal"); immutable && err == nil && fi.Size() > 0 {
		s.skippedLog = fi.Size()
	}
	if err := s.checkSchema(ctx); err != nil {
		db.Close()
		if n, ok := s.SkippedLog(); ok {
			return nil, fmt.Errorf("open store %s (read without its write-ahead log %s-wal, %d bytes, which needs a %s-shm file that cannot be created there: copy both files to a directory you can write): %w", path, path, n, path, err)
		}
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// CheckExisting reports, reading only, whether Open would refuse the
// database at path for what it holds (checkMigratable): a schema newer
// than this scent's, or another program's tables (ErrNotScent). A missing file, an empty
// one and an older schema, which Open upgrades, are no error. A command
// that works long before it opens its store (training a model) calls it
// first, so that the refusal comes before the work.
func CheckExisting(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, _, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return err // it names the file
	}
	defer db.Close()
	if _, err := (&Store{db: db}).checkMigratable(ctx); err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	return nil
}

// checkSchema reports whether the database holds scent's current schema,
// without changing anything.
func (s *Store) checkSchema(ctx context.Context) error {
	cur, err := schemaVersion(ctx, s.db)
	if err != nil {
		return err
	}
	if cur == 0 {
		if err := s.checkForeign(ctx); err != nil {
			return err
		}
		return fmt.Errorf("%w: it is empty (no crawl was stored in it)", ErrNotScent)
	}
	if n := SchemaVersion(); cur > n {
		return errNewerSchema(cur, n)
	} else if cur < n {
		return fmt.Errorf("database schema version %d: %w (%d)", cur, ErrOldSchema, n)
	}
	return nil
}

// checkForeign fails with ErrNotScent when a database without scent's
// schema version already holds tables: another program's file.
func (s *Store) checkForeign(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 6`)
	if err != nil {
		return fmt.Errorf("read tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("%w: it is an SQLite database of another program (tables %s); give another --db", ErrNotScent, strings.Join(names, ", "))
	}
	return nil
}

// SkippedLog returns the size of the database's write-ahead log (DB-wal)
// that a read-only open left unread, and whether there was one: where
// the -shm file reading it needs cannot be created (a directory the user
// cannot write), the database is read as it was at its last checkpoint,
// without the commits since (of a crawl killed, or still running).
func (s *Store) SkippedLog() (int64, bool) {
	return s.skippedLog, s.skippedLog > 0
}

// openReadOnlyDB opens the database at path read-only, as immutable when
// a WAL database's -shm file cannot be created (a read-only directory),
// and tells which.
func openReadOnlyDB(ctx context.Context, path string) (*sql.DB, bool, error) {
	open := func(immutable bool) (*sql.DB, error) {
		q := url.Values{}
		q.Set("mode", "ro")
		q.Set("_busy_timeout", "10000")
		if immutable {
			q.Set("immutable", "1")
		}
		db, err := sql.Open(driverName, fileURI(path, q))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		var cur int // a read that fails when the file cannot be opened so
		if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	db, err := open(false)
	if err == nil {
		return db, false, nil
	}
	db, err2 := open(true)
	if err2 != nil {
		// Said as it is, not as a failure to open it read-only: a
		// command that writes reads its version this way first.
		if notADatabase(err) {
			return nil, false, fmt.Errorf("open store %s: %w; give another --db", path, ErrNotSQLite)
		}
		return nil, false, fmt.Errorf("open store %s read-only: %w", path, err)
	}
	return db, true, nil
}

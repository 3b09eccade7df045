//go:build cgo

package sqlite

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// Available reports whether this build can open databases: the SQLite
// driver is C code compiled through cgo.
func Available() error { return nil }

// notADatabase reports whether err is SQLite's refusal of a file that is
// not a database (SQLITE_NOTADB).
func notADatabase(err error) bool {
	var e sqlite3.Error
	return errors.As(err, &e) && e.Code == sqlite3.ErrNotADB
}

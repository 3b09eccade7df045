//go:build !cgo

package sqlite

import "errors"

// Available reports whether this build can open databases: the SQLite
// driver is C code compiled through cgo, and this build has no cgo.
func Available() error {
	return errors.New("this scent was built without cgo (CGO_ENABLED=0), and its SQLite driver (go-sqlite3) is C code: install a C compiler (gcc or clang) and build again with CGO_ENABLED=1")
}

// notADatabase reports whether err is SQLite's refusal of a file that is
// not a database: never in a build that opens none.
func notADatabase(err error) bool { return false }

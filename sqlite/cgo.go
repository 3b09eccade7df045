//go:build cgo

package sqlite

// Available reports whether this build can open databases: the SQLite
// driver is C code compiled through cgo.
func Available() error { return nil }

//go:build !unix

package owner

// Alive cannot tell here: every process counts as running.
func Alive(pid int) bool { return true }

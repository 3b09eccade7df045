//go:build !unix

package owner

// processAlive cannot tell here: every maker counts as running.
func processAlive(pid int) bool { return true }

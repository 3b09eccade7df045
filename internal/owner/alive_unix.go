//go:build unix

package owner

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this id runs on this host (or has
// not yet been reaped).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

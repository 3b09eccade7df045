// Package atomicfile writes files so that a crash never leaves a
// half-written one: the data goes to a temporary file in the same folder,
// which is synced and renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes path through write, given a temporary file in path's
// folder that replaces path once write returned nil and the data is
// synced. On an error path is left as it was.
func Write(path string, write func(*os.File) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/scent-crawler/scent/internal/owner"
)

// Write writes path through write, given a temporary file in path's
// folder that replaces path once write returned nil and the data is
// synced. On an error path is left as it was.
//
// A new file gets the permissions the process's umask leaves of 0666, a
// file replaced keeps its own, and a symbolic link keeps pointing where it
// did: the file it points to is replaced. A path that is not a regular
// file, such as /dev/null or a named pipe, is written to directly, never
// replaced; a directory is refused.
func Write(path string, write func(*os.File) error) error {
	target, mode, err := resolve(path)
	if err != nil {
		return err
	}
	if mode != nil && !mode.IsRegular() {
		return writeInPlace(target, write)
	}
	dir, base := filepath.Split(target)
	owner.Sweep(filepath.Clean(dir), tempPrefix(base), os.Remove)
	tmp, err := createTemp(target)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if mode != nil {
		if err := tmp.Chmod(mode.Perm()); err != nil {
			tmp.Close()
			return err
		}
	}
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
	return os.Rename(tmp.Name(), target)
}

// resolve follows path's symbolic links and returns the file to write and
// its mode, or a nil mode when it does not exist yet.
func resolve(path string) (string, *fs.FileMode, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dest, lerr := os.Readlink(path); lerr == nil {
			// A dangling link: create the file it names.
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
			return dest, nil, nil
		}
		return path, nil, nil
	case err != nil:
		return "", nil, err
	case fi.IsDir():
		return "", nil, fmt.Errorf("write %s: is a directory", path)
	case !fi.Mode().IsRegular():
		// Written in place as named (/dev/stdout names a pipe that
		// no path leads to).
		mode := fi.Mode()
		return path, &mode, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, err
	}
	mode := fi.Mode()
	return target, &mode, nil
}

// writeInPlace writes to a file that is not a regular one (a device, a
// pipe) as it is.
func writeInPlace(path string, write func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// createTemp creates a new file beside path, with the permissions the
// umask leaves of 0666 (os.CreateTemp makes 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, tempPrefix(base)+owner.Tag()+"-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		switch {
		case errors.Is(err, fs.ErrExist):
			continue
		case err != nil:
			// The error of the file the user named, not of the
			// temporary one.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("write %s: no free temporary name", path)
}

// tempPrefix starts the names of the temporary files of base, each
// followed by its writer's owner.Tag and a random part:
// ".report.md.HOST.PID-RANDOM". The next write of base removes those of
// writers killed before they could (owner.Sweep).
func tempPrefix(base string) string { return "." + base + "." }

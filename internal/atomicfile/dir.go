package atomicfile

import (
	"errors"
	"fmt"
	"os"
)

// CheckWritableDir reports whether dir exists and a file can be created in
// it, by creating and removing one; errors name the flag that gave it.
func CheckWritableDir(dir, flag string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: directory %s does not exist", flag, dir)
		}
		return fmt.Errorf("%s: %w", flag, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", flag, dir)
	}
	f, err := os.CreateTemp(dir, ".scent-check-*")
	if err != nil {
		return fmt.Errorf("%s: directory %s is not writable: %w", flag, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := Write(path, func(f *os.File) error { _, err := f.WriteString("one"); return err }); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("half-way")
	if err := Write(path, func(f *os.File) error { f.WriteString("tw"); return failed }); !errors.Is(err, failed) {
		t.Fatalf("Write = %v, want the writer's error", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "one" {
		t.Errorf("after a failed write the file holds %q, %v; want the first write", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files left in the folder, want 1 (no temporary file)", len(entries))
	}
}

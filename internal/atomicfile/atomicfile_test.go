package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestWrite_keepsWhatIsThere: a file replaced keeps its permissions, a
// symbolic link keeps pointing at the file it names (which is written),
// a directory is refused.
func TestWrite_keepsWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	text := func(s string) func(*os.File) error {
		return func(f *os.File) error { _, err := f.WriteString(s); return err }
	}
	kept := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(kept, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(kept, text("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: %v, %v; want its permissions 0640 kept", fi.Mode(), err)
	}

	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("kept.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, text("through the link")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(kept); string(b) != "through the link" {
		t.Errorf("the file the link names holds %q", b)
	}
	dangling := filepath.Join(dir, "dangling.txt")
	if err := os.Symlink("made.txt", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, text("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "made" {
		t.Errorf("a dangling link's file holds %q, want it made", b)
	}

	if err := Write(dir, text("x")); err == nil {
		t.Error("a directory was written over")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 { // kept.txt, link.txt, dangling.txt, made.txt
		t.Errorf("%d files in the folder, want 4 (no temporary file left)", len(entries))
	}
}

// TestWrite_missingFolder: the error names the file asked for, not the
// temporary one.
func TestWrite_missingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "f.txt")
	err := Write(path, func(*os.File) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "write "+path+": ") || strings.Contains(err.Error(), ".f.txt.") {
		t.Errorf("Write into a missing folder: %v", err)
	}
}

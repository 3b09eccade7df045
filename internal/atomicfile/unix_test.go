//go:build unix

package atomicfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/internal/owner"
)

// TestWrite_newFileUmask: a new file gets 0666 less the umask, as a file
// created with os.Create would, not os.CreateTemp's 0600.
func TestWrite_newFileUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "new.txt")
	if err := Write(path, func(f *os.File) error { _, err := f.WriteString("x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: %v, %v; want 0644 under umask 022", fi.Mode(), err)
	}
}

// TestWrite_namedPipe: a path that is not a regular file (a named pipe,
// as /dev/null is a device) is written to, never replaced.
func TestWrite_namedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	// Through a link to it, as /dev/stdout is a link to a pipe.
	link := filepath.Join(filepath.Dir(path), "stdout")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, func(f *os.File) error { _, err := f.WriteString("through the pipe"); return err }); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "through the pipe" {
			t.Errorf("the reader of the pipe got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing was written to the pipe")
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe is now %v (%v): it must never be replaced", fi.Mode(), err)
	}
}

// TestWrite_sweepsKilledWriters: a write removes the temporary files of
// its path that writers of this host left when they were killed (their
// process is gone), and leaves a live writer's, another host's and
// another path's.
func TestWrite_sweepsKilledWriters(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	host, _, _ := strings.Cut(owner.Tag(), ".")
	tmp := func(base, h string, pid int) string {
		name := filepath.Join(dir, "."+base+"."+h+"."+strconv.Itoa(pid)+"-0123456789ab")
		if err := os.WriteFile(name, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	killed := tmp("out.txt", host, dead.Process.Pid)
	live := tmp("out.txt", host, os.Getppid())
	elsewhere := tmp("out.txt", host+"x", dead.Process.Pid)
	other := tmp("other.txt", host, dead.Process.Pid)
	if err := Write(path, func(f *os.File) error { _, err := f.WriteString("whole"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("the killed writer's file is still there (%v)", err)
	}
	for _, name := range []string{live, elsewhere, other} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s: %v, want it left alone", filepath.Base(name), err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "whole" {
		t.Errorf("%s holds %q", path, b)
	}
}

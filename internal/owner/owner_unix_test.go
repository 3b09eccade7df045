//go:build unix

package owner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deadPID is the id of a process that ran and ended.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	return c.Process.Pid
}

func TestDead(t *testing.T) {
	h, pid, _ := strings.Cut(Tag(), ".")
	if pid != strconv.Itoa(os.Getpid()) || h == "" || strings.ContainsAny(h, ".-/") {
		t.Fatalf("Tag() = %q", Tag())
	}
	dead := deadPID(t)
	for _, tt := range []struct {
		tag  string
		want bool
	}{
		{Tag(), false},
		{h + "." + strconv.Itoa(dead), true},
		{h + "." + strconv.Itoa(os.Getppid()), false},
		{h + "x." + strconv.Itoa(dead), false},
		{h + ".", false},
		{h + ".-3", false},
		{"", false},
		{strconv.Itoa(dead), false},
	} {
		if got := Dead(tt.tag); got != tt.want {
			t.Errorf("Dead(%q) = %v, want %v", tt.tag, got, tt.want)
		}
	}
}

// TestTempDir: a new folder is named after its maker; the folders of the
// same prefix whose maker is dead are removed first, a running maker's,
// another host's, another prefix's and a name that is no tag are left.
func TestTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h, _, _ := strings.Cut(Tag(), ".")
	dead := strconv.Itoa(deadPID(t))
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	killed := mk("scent-bfs-" + h + "." + dead + "-123")
	kept := []string{
		mk("scent-bfs-" + h + "." + strconv.Itoa(os.Getppid()) + "-123"),
		mk("scent-bfs-" + h + "x." + dead + "-123"),
		mk("scent-grid-" + h + "." + dead + "-123"),
		mk("scent-bfs-123"),
	}
	dir, err := TempDir("scent-bfs-")
	if err != nil {
		t.Fatal(err)
	}
	if base := filepath.Base(dir); filepath.Dir(dir) != tmp || !strings.HasPrefix(base, "scent-bfs-"+Tag()+"-") {
		t.Errorf("TempDir = %s, want %s/scent-bfs-%s-…", dir, tmp, Tag())
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("the dead maker's folder is still there (%v)", err)
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want it left alone", filepath.Base(p), err)
		}
	}
}

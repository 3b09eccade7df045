package owner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// host is this machine's name as Tag writes it: without the '.' that
// ends it in a tag, nor '-', '/' and '\', which the names Tag goes into
// use as separators.
var host = func() string {
	h, _ := os.Hostname()
	h = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r == '-' || r < ' ' {
			return '_'
		}
		return r
	}, h)
	if h == "" {
		h = "_"
	}
	return h
}()

// Tag is this process's part of the names it makes: "HOST.PID".
func Tag() string { return host + "." + strconv.Itoa(os.Getpid()) }

// Dead reports whether tag, a Tag, names a process of this host that no
// longer runs. It is false for this process, a process still running (or
// not yet reaped), another host's and anything that is no tag; and on a
// system where it cannot tell.
func Dead(tag string) bool {
	h, pid, ok := cutLast(tag, ".")
	if !ok || h != host {
		return false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 || n == os.Getpid() {
		return false
	}
	return !Alive(n)
}

// TempDir makes a new folder in the system's temporary folder named
// prefix, Tag and a random part ("scent-bfs-HOST.PID-RANDOM"), after
// removing the folders of the same prefix whose maker is Dead.
func TempDir(prefix string) (string, error) {
	dir := os.TempDir()
	Sweep(dir, prefix, os.RemoveAll)
	return os.MkdirTemp(dir, prefix+Tag()+"-")
}

// Sweep calls remove with every entry of dir named prefix, a Tag that is
// Dead, '-' and a part without '-' (the names TempDir, and files named
// the same way, are given).
func Sweep(dir, prefix string, remove func(string) error) {
	names, err := filepath.Glob(filepath.Join(dir, globEscaper.Replace(prefix)+"*"))
	if err != nil {
		return
	}
	for _, name := range names {
		tag, random, ok := cutLast(strings.TrimPrefix(filepath.Base(name), prefix), "-")
		if ok && random != "" && Dead(tag) {
			remove(name)
		}
	}
}

// cutLast slices s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// globEscaper escapes what filepath.Glob reads as a pattern in a name.
var globEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)

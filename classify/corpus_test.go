package classify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/scent-crawler/scent/internal/sharedtest"
)

// sharedDir returns ../shared beside the module root, or skips the test.
func sharedDir(t *testing.T) string {
	return filepath.Dir(sharedtest.Path(t, "corpus"))
}

var tagRE = regexp.MustCompile(`(?s)<[^>]*>`)

// pageTokens strips the HTTP header block and the tags of a WebKB file and
// returns its lower-cased words.
func pageTokens(b []byte) []string {
	if bytes.HasPrefix(b, []byte("MIME-Version")) || bytes.HasPrefix(b, []byte("HTTP/")) {
		crlf := bytes.Index(b, []byte("\r\n\r\n"))
		lf := bytes.Index(b, []byte("\n\n"))
		switch {
		case crlf >= 0 && (lf < 0 || crlf < lf):
			b = b[crlf+4:]
		case lf >= 0:
			b = b[lf+2:]
		}
	}
	text := strings.ToLower(tagRE.ReplaceAllString(string(b), " "))
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
}

// webkbExamples reads the pages of the given group from webkb.tgz, labelled
// with their directory's class when it is in classes.
func webkbExamples(t *testing.T, path, group string, classes ...string) []Example {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("read corpus %s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	var out []Example
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read corpus %s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(h.Name, "./"), "/")
		if len(parts) != 3 || parts[1] != group {
			continue
		}
		for _, c := range classes {
			if parts[0] != c {
				continue
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("read %s: %v", h.Name, err)
			}
			out = append(out, Example{Class: c, Tokens: pageTokens(b)})
		}
	}
	return out
}

func TestPageTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"MIME-Version: 1.0\nServer: x\n\n<html><B>Hello</B> World-2</html>", "hello world"},
		{"HTTP/1.0 200 OK\r\nA: b\r\n\r\n<p>CS 101: Intro</p>", "cs intro"},
		{"<title>Étude</title>\n<a\nhref=x>Go</a>", "étude go"},
	}
	for _, tt := range tests {
		if got := strings.Join(pageTokens([]byte(tt.in)), " "); got != tt.want {
			t.Errorf("pageTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCrossValidate_webkb(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the corpus test in -short mode")
	}
	path := filepath.Join(sharedDir(t), "corpus", "webkb.tgz")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: corpus %s is absent", path)
	}
	ex := webkbExamples(t, path, "misc", "course", Other)
	n := map[string]int{}
	for _, e := range ex {
		n[e.Class]++
	}
	if n["course"] < 100 || n[Other] < 100 {
		t.Fatalf("corpus group misc gave %v documents", n)
	}
	for _, event := range []Event{EventBinary, EventMultinomial} {
		ev, err := CrossValidate(ex, 5, Options{Event: event}, 1)
		if err != nil {
			t.Fatal(err)
		}
		sc, _ := ev.Topic("course")
		t.Logf("webkb misc, course vs other, %v, K=%d, 5-fold: precision %.3f recall %.3f F1 %.3f accuracy %.3f (%d course, %d other)",
			event, DefaultK, sc.Precision, sc.Recall, sc.F1, ev.Accuracy, n["course"], n[Other])
		if event == EventBinary && (sc.Precision < 0.7 || sc.Recall < 0.7) {
			t.Errorf("course precision %.3f, recall %.3f; want both ≥ 0.7", sc.Precision, sc.Recall)
		}
	}
}

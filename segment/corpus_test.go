package segment

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/internal/sharedtest"

	"github.com/scent-crawler/scent/urlnorm"
)

// sharedDir returns ../shared beside the module root, or skips the test.
func sharedDir(t *testing.T) string {
	return filepath.Dir(sharedtest.Path(t, "corpus"))
}

// corpusPage is one file of the WebKB archive.
type corpusPage struct {
	name        string
	url         urlnorm.URL // zero for ftp: and file: names
	contentType string
	body        []byte
}

// readCorpus calls fn for every page of the WebKB archive.
func readCorpus(t *testing.T, fn func(corpusPage)) {
	t.Helper()
	path := filepath.Join(sharedDir(t), "corpus", "webkb.tgz")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("read %s: %s: %v", path, h.Name, err)
		}
		p := corpusPage{name: h.Name}
		p.contentType, p.body = splitHeaders(data)
		raw := strings.ReplaceAll(filepath.Base(h.Name), "^", "/")
		if u, err := urlnorm.Parse(raw); err == nil {
			p.url = u
		}
		fn(p)
	}
}

// splitHeaders separates the HTTP headers some corpus files start with
// from the body and returns the Content-Type header and the body.
func splitHeaders(data []byte) (contentType string, body []byte) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	colon := bytes.IndexByte(first, ':')
	if colon <= 0 || bytes.ContainsAny(first[:colon], " <\t") {
		return "", data
	}
	rest := data
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			return contentType, rest
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "content-type") {
			contentType = strings.TrimSpace(string(v))
		}
	}
	return contentType, rest
}

// TestCorpus_tokenizeMatchesProse splits every page of the WebKB corpus and
// requires Tokenize to give exactly prose's tokens for its text and title.
func TestCorpus_tokenizeMatchesProse(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus comparison skipped in -short mode")
	}
	var (
		pages, failed, segments, tokens, textBytes int
		mismatches                                 int
		fastTime, proseTime                        time.Duration
	)
	charsets := map[string]int{}
	readCorpus(t, func(cp corpusPage) {
		p, err := Split(cp.body, cp.contentType, cp.url, Options{})
		if err != nil {
			failed++
			t.Logf("%s: %v", cp.name, err)
			return
		}
		pages++
		charsets[p.Charset]++
		segments += len(p.Segments)
		textBytes += len(p.Text) + len(p.Title)
		for _, text := range []string{p.Text, p.Title} {
			start := time.Now()
			fast := Tokenize(text, nil)
			fastTime += time.Since(start)
			start = time.Now()
			ref := ProseTokenize(text)
			proseTime += time.Since(start)
			tokens += len(ref)
			if !slices.Equal(fast, ref) {
				mismatches++
				if mismatches <= 5 {
					t.Errorf("%s: Tokenize and prose differ: %s", cp.name, firstDifference(fast, ref))
				}
			}
		}
		if !p.Truncated && !slices.Equal(p.Tokens, Tokenize(p.Text, nil)) {
			t.Errorf("%s: Page.Tokens differ from Tokenize(Page.Text)", cp.name)
		}
	})
	if pages == 0 {
		t.Fatal("no pages read from the corpus")
	}
	t.Logf("%d pages split (%d not text), %d segments, %d tokens from %d bytes of text; charsets %v",
		pages, failed, segments, tokens, textBytes, charsets)
	t.Logf("%d mismatches; Tokenize %v, prose %v (%.1f× faster)",
		mismatches, fastTime, proseTime, float64(proseTime)/float64(fastTime))
	if mismatches > 0 {
		t.Errorf("%d texts tokenized differently", mismatches)
	}
	if pages < 8000 {
		t.Errorf("only %d pages split; the corpus has 8,282", pages)
	}
}

// firstDifference describes where two token lists first differ.
func firstDifference(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			lo := max(0, i-3)
			return fmt.Sprintf("at token %d: fast %q, prose %q", i, got[lo:min(len(got), i+3)], want[lo:min(len(want), i+3)])
		}
	}
	return fmt.Sprintf("%d and %d tokens", len(got), len(want))
}

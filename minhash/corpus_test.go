package minhash_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/scent-crawler/scent/internal/sharedtest"

	"github.com/scent-crawler/scent/minhash"
)

// corpusPath returns ../shared/corpus/webkb.tgz, or skips the test.
func corpusPath(t *testing.T) string {
	return sharedtest.Path(t, "corpus/webkb.tgz")
}

// crudeText is a rough stand-in for core-text extraction: it drops the
// stored HTTP headers, markup, and script and style elements.
func crudeText(page string) string {
	if strings.HasPrefix(page, "MIME-Version:") || strings.HasPrefix(page, "HTTP/") {
		if _, body, ok := strings.Cut(page, "\n\n"); ok {
			page = body
		} else if _, body, ok := strings.Cut(page, "\r\n\r\n"); ok {
			page = body
		}
	}
	var b strings.Builder
	lower := strings.ToLower(page)
	for i := 0; i < len(page); {
		if page[i] != '<' {
			b.WriteByte(page[i])
			i++
			continue
		}
		for _, el := range []string{"script", "style"} {
			if strings.HasPrefix(lower[i+1:], el) {
				if end := strings.Index(lower[i:], "</"+el); end >= 0 {
					i += end
				}
			}
		}
		end := strings.IndexByte(page[i:], '>')
		if end < 0 {
			break
		}
		b.WriteByte(' ')
		i += end + 1
	}
	return b.String()
}

// shingleSet returns the set of 8-word shingles of text, as strings.
func shingleSet(text string) map[string]bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	set := map[string]bool{}
	for i := 0; i+8 <= len(words); i++ {
		set[strings.Join(words[i:i+8], " ")] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for s := range a {
		if b[s] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// TestCorpus signs every WebKB page and stores them in order in a MemIndex.
// Pages of identical words must all be found duplicates of the first, and
// the pages found near-duplicates of shingled originals must really
// resemble them: their exact shingle-set resemblance, computed here without
// min-hash, is at least 0.77 for nearly all of them.
func TestCorpus(t *testing.T) {
	path := corpusPath(t)
	if testing.Short() {
		t.Skip("signs the 8,282 pages of WebKB")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	type page struct{ name, text string }
	var pages []page
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read corpus: %v", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("read %s: %v", h.Name, err)
		}
		pages = append(pages, page{h.Name, crudeText(string(body))})
	}
	slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.name, b.name) })

	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	idx := new(minhash.MemIndex)
	ctx := context.Background()
	kinds := map[minhash.Kind]int{}
	firstOfWords := map[string]int{} // the first page of each exact word sequence
	type dupPair struct{ page, orig int }
	var near []dupPair
	repeats, dups := 0, 0
	for i, p := range pages {
		sig := signer.Sign(p.text)
		kinds[sig.Kind]++
		orig, dup, err := idx.CheckAndInsert(ctx, int64(i), sig)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		words := strings.Join(strings.FieldsFunc(strings.ToLower(p.text), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
		}), " ")
		first, seen := firstOfWords[words]
		if !seen {
			firstOfWords[words] = i
		}
		if dup {
			dups++
			if sig.Kind == minhash.KindShingled {
				near = append(near, dupPair{i, int(orig)})
			}
		}
		if seen && sig.Indexable() {
			repeats++
		}
		if seen && sig.Indexable() && !dup {
			t.Errorf("%s has the words of %s but is not a duplicate", p.name, pages[first].name)
		}
	}
	low := 0
	hist := map[string]int{}
	for _, d := range near {
		j := jaccard(shingleSet(pages[d.page].text), shingleSet(pages[d.orig].text))
		switch {
		case j >= 0.975:
			hist["≥0.975"]++
		case j >= 0.77:
			hist["0.77–0.975"]++
		default:
			hist["<0.77"]++
			low++
			t.Logf("low resemblance %.3f: %s duplicate of %s", j, pages[d.page].name, pages[d.orig].name)
		}
	}
	t.Logf("%d pages: %d empty, %d exact, %d shingled; %d duplicates (%d repeat earlier words exactly), %d of them shingled; true resemblance of those: %v",
		len(pages), kinds[minhash.KindEmpty], kinds[minhash.KindExact], kinds[minhash.KindShingled], dups, repeats, len(near), hist)
	if len(near) > 0 && float64(low) > 0.05*float64(len(near)) {
		t.Errorf("%d of %d near-duplicates resemble their original less than 0.77", low, len(near))
	}
}

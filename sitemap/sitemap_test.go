package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://a.test/courses/cs101.html</loc><lastmod>2026-11-01</lastmod></url>
  <url><loc> http://a.test/b?x=1&amp;y=2 </loc><lastmod>2026-11-02T10:30:00+01:00</lastmod><priority>0.5</priority></url>
  <url><loc>ftp://a.test/no</loc></url>
</urlset>`

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestParse(t *testing.T) {
	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://a.test/s1.xml.gz</loc><lastmod>2026-10-01T00:00Z</lastmod></sitemap></sitemapindex>`
	tests := []struct {
		name    string
		in      []byte
		index   bool
		want    string // Loc|LastMod … joined by spaces
		skipped int
	}{
		{"urlset", []byte(urlset), false, "http://a.test/courses/cs101.html|2026-11-01 http://a.test/b?x=1&y=2|2026-11-02T09:30:00Z", 1},
		{"gzip", gz(urlset), false, "http://a.test/courses/cs101.html|2026-11-01 http://a.test/b?x=1&y=2|2026-11-02T09:30:00Z", 1},
		{"index", []byte(index), true, "http://a.test/s1.xml.gz|2026-10-01", 0},
		{"text", []byte("\ufeffhttp://a.test/x\r\n\nnot a url\nhttps://a.test/y\n"), false, "http://a.test/x| https://a.test/y|", 1},
	}
	for _, tc := range tests {
		sm, err := Parse(bytes.NewReader(tc.in), Limits{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, e := range sm.Entries {
			lm := ""
			if !e.LastMod.IsZero() {
				lm = e.LastMod.Format(time.RFC3339)
				lm = strings.TrimSuffix(lm, "T00:00:00Z")
			}
			got = append(got, e.Loc+"|"+lm)
		}
		if g := strings.Join(got, " "); g != tc.want || sm.Index != tc.index || sm.Skipped != tc.skipped {
			t.Errorf("%s: %q index=%v skipped=%d, want %q index=%v skipped=%d", tc.name, g, sm.Index, sm.Skipped, tc.want, tc.index, tc.skipped)
		}
	}
}

func TestParse_refused(t *testing.T) {
	many := "<urlset>" + strings.Repeat("<url><loc>http://a.test/p</loc></url>", 11) + "</urlset>"
	huge := "<urlset>" + strings.Repeat("<url><loc>http://a.test/p</loc></url>", 100) + "</urlset>"
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"html", []byte("<!DOCTYPE html><html><body>not found</body></html>"), ErrMalformed},
		{"broken xml", []byte("<urlset><url><loc>http://a.test/</loc></url"), ErrMalformed},
		{"no urls in text", []byte("hello\nworld\n"), ErrMalformed},
		{"bad gzip", []byte{0x1f, 0x8b, 1, 2, 3}, ErrMalformed},
		{"too many", []byte(many), ErrTooMany},
		{"too large", []byte(huge), ErrTooLarge},
		{"too large gzip", gz(huge), ErrTooLarge},
		{"too large text", []byte(strings.Repeat("http://a.test/p\n", 300)), ErrTooLarge},
	}
	for _, tc := range tests {
		lim := Limits{MaxBytes: 2000, MaxEntries: 10}
		if strings.HasPrefix(tc.name, "too large") {
			lim.MaxEntries = 1000
		}
		_, err := Parse(bytes.NewReader(tc.in), lim)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(urlset))
	f.Add(gz(urlset))
	f.Add([]byte("http://a.test/x\n"))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a.test/s</loc></sitemap></sitemapindex>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sm, err := Parse(bytes.NewReader(data), Limits{MaxBytes: 1 << 16, MaxEntries: 100})
		if err != nil {
			return
		}
		if len(sm.Entries) > 100 {
			t.Fatalf("%d entries over the limit", len(sm.Entries))
		}
		for _, e := range sm.Entries {
			if !strings.HasPrefix(e.Loc, "http://") && !strings.HasPrefix(e.Loc, "https://") && !strings.HasPrefix(strings.ToLower(e.Loc), "http") {
				t.Fatalf("entry %q is not an http(s) URL", e.Loc)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<urlset>")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, "<url><loc>http://a.test/p%d.html</loc><lastmod>2026-11-01</lastmod></url>", i)
	}
	sb.WriteString("</urlset>")
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

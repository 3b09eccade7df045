package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/revisit"
)

// pageText is a typical extracted page text: a faculty home page of
// 2.7 KB.
func pageText(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "text", "page.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// nonASCII is a long text in several scripts.
var nonASCII = strings.Repeat("Ngô Thanh Nhàn, linguiste à l'université — Überblick über Ζήτα 日本語の文章 ", 40)

func TestStoreText(t *testing.T) {
	page := pageText(t)
	for _, tc := range []struct {
		name       string
		text       string
		compressed bool
	}{
		{"empty", "", false},
		{"one letter", "a", false},
		{"short", "Home", false},
		{"page", page, true},
		{"non-ASCII", nonASCII, true},
		{"not UTF-8", strings.Repeat("caf\xe9 \xff\xfe ", 50), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := storeText(tc.text)
			b, isBlob := v.([]byte)
			if isBlob != tc.compressed {
				t.Fatalf("stored as %T, want compressed %v", v, tc.compressed)
			}
			if isBlob && len(b) >= len(tc.text) {
				t.Errorf("compressed to %d bytes from %d", len(b), len(tc.text))
			}
			got, err := readText(v)
			if err != nil || got != tc.text {
				t.Errorf("read back %q, %v; want %q", got, err, tc.text)
			}
			var col textColumn
			if err := col.Scan(v); err != nil || col.S != tc.text {
				t.Errorf("scanned %q, %v; want %q", col.S, err, tc.text)
			}
		})
	}
	if b, ok := storeText(page).([]byte); !ok || len(b) > len(page)/2 {
		t.Errorf("a page of %d bytes stored in %d", len(page), len(b))
	}
}

func TestReadText_bad(t *testing.T) {
	if s, err := readText(nil); err != nil || s != "" {
		t.Errorf("NULL reads %q, %v; want the empty text", s, err)
	}
	if _, err := readText([]byte{0xff, 0xff, 0xff}); err == nil {
		t.Error("a blob that is not DEFLATE was read")
	}
	if _, err := readText(int64(3)); err == nil {
		t.Error("an integer was read as text")
	}
	var col textColumn
	if err := col.Scan([]byte("not deflate")); err == nil {
		t.Error("scanned a blob that is not DEFLATE")
	}
}

// FuzzReadText: any text round-trips; any stored value is read or
// refused without a panic.
func FuzzReadText(f *testing.F) {
	f.Add("", []byte{})
	f.Add(nonASCII, []byte{0x01, 0x00, 0x00, 0xff, 0xff})
	f.Add(strings.Repeat("vision ", 20), storeText(strings.Repeat("robotics ", 30)).([]byte))
	f.Fuzz(func(t *testing.T, text string, blob []byte) {
		got, err := readText(storeText(text))
		if err != nil || got != text {
			t.Fatalf("%q read back as %q, %v", text, got, err)
		}
		_, _ = readText(blob)
	})
}

// TestStore_text: page texts are stored compressed and read back whole
// by every reader: EachText, VersionText, PageVersions, a revisit's copy
// of the crawled version, SQL through scent_text, and search snippets.
func TestStore_text(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	page := pageText(t)
	accents := "Séminaire de l'équipe: " + nonASCII + " la reconnaissance des formes en robotique mobile, " + nonASCII
	texts := map[string]string{"/page": page, "/accents": accents, "/short": "Robotics", "/empty": ""}
	pages := []*crawler.Page{
		{URL: u("/page"), Status: 200, Title: "Maria", Text: page},
		{URL: u("/accents"), Status: 200, Title: "Équipe", Text: accents},
		{URL: u("/short"), Status: 200, Title: "Short", Text: "Robotics"},
		{URL: u("/empty"), Status: 200, Title: "Frames", Text: ""},
	}
	if err := s.Commit(ctx, st.ID, pages, nil); err != nil {
		t.Fatal(err)
	}
	var blobs int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM pages WHERE typeof(text) = 'blob'`).Scan(&blobs); err != nil || blobs != 2 {
		t.Errorf("%d texts stored compressed (%v), want 2", blobs, err)
	}
	ids := map[string]int64{}
	err := s.EachText(ctx, st.ID, func(r *TextRow) error {
		path := strings.TrimPrefix(r.URL, "http://a.test")
		ids[path] = r.ID
		if r.Text != texts[path] {
			t.Errorf("EachText %s = %.60q…, want %.60q…", path, r.Text, texts[path])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 {
		t.Errorf("EachText read %v, want the 3 pages with text", ids)
	}
	for path, id := range ids {
		if txt, err := s.VersionText(ctx, id, 1); err != nil || txt != texts[path] {
			t.Errorf("VersionText %s = %.60q…, %v", path, txt, err)
		}
		if vs, err := s.PageVersions(ctx, id); err != nil || len(vs) != 1 || vs[0].Text != texts[path] {
			t.Errorf("PageVersions %s: %v", path, err)
		}
		var viaSQL string
		if err := s.DB().QueryRow(`SELECT scent_text(text) FROM pages WHERE id = ?`, id).Scan(&viaSQL); err != nil || viaSQL != texts[path] {
			t.Errorf("scent_text %s = %.60q…, %v", path, viaSQL, err)
		}
	}

	// A new version stores both versions compressed; both read back.
	t1 := time.Date(2024, 3, 5, 9, 0, 0, 0, time.UTC)
	newText := accents + " Nouvelle version."
	v2 := &revisit.Version{Number: 2, FetchedAt: t1, Status: 200, Title: "Équipe", Text: newText,
		Change: change.IED(change.Words(accents), change.Words(newText), change.DefaultCosts()), Costs: change.DefaultCosts()}
	if err := s.RecordCheck(ctx, &revisit.Check{PageID: ids["/accents"], URL: u("/accents"), CheckedAt: t1, Status: 200,
		Changed: true, Version: 2, New: v2}); err != nil {
		t.Fatal(err)
	}
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM page_versions WHERE typeof(text) = 'blob'`).Scan(&blobs); err != nil || blobs != 2 {
		t.Errorf("%d version texts stored compressed (%v), want 2", blobs, err)
	}
	vs, err := s.PageVersions(ctx, ids["/accents"])
	if err != nil || len(vs) != 2 || vs[0].Text != accents || vs[1].Text != newText {
		t.Errorf("versions after a change: %d, %v", len(vs), err)
	}
	for v, want := range map[int]string{1: accents, 2: newText} {
		if txt, err := s.VersionText(ctx, ids["/accents"], v); err != nil || txt != want {
			t.Errorf("VersionText(%d) = %.60q…, %v", v, txt, err)
		}
	}

	// Search reads the text through the view: snippets are plain text,
	// accents and all.
	res, err := s.Search(ctx, "robotique", 10)
	if err != nil || len(res) != 1 {
		t.Fatalf("Search(robotique) = %+v, %v", res, err)
	}
	// The snippet is the one FTS4 cuts from the plain text.
	if _, err := s.DB().Exec(`CREATE VIRTUAL TABLE temp.plain USING fts4(title, text, tokenize=unicode61);
		INSERT INTO temp.plain(title, text) VALUES ('Équipe', ?)`, accents); err != nil {
		t.Fatal(err)
	}
	var want string
	if err := s.DB().QueryRow(`SELECT snippet(plain, '[', ']', '…', -1, 24) FROM temp.plain WHERE plain MATCH 'robotique'`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if res[0].Snippet != want || !strings.Contains(want, "en [robotique] mobile, Ngô Thanh Nhàn") || res[0].Title != "Équipe" {
		t.Errorf("snippet %q, want %q", res[0].Snippet, want)
	}
	res, err = s.Search(ctx, "replication", 10)
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Snippet, "[replication]") || res[0].URL != u("/page").String() {
		t.Errorf("Search(replication) = %+v, %v", res, err)
	}
}

// BenchmarkStoreText: compressing a typical page text as Commit does,
// and the bytes stored.
func BenchmarkStoreText(b *testing.B) {
	page := pageText(b)
	b.SetBytes(int64(len(page)))
	var n int
	for b.Loop() {
		n = len(storeText(page).([]byte))
	}
	b.ReportMetric(float64(n), "stored-bytes")
}

// BenchmarkReadText: decompressing a typical page text, as EachText,
// VersionText and search snippets do.
func BenchmarkReadText(b *testing.B) {
	page := pageText(b)
	v := storeText(page)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := readText(v); err != nil {
			b.Fatal(err)
		}
	}
}

// A page the store prepared on its fetch's goroutine is stored as one it
// did not: the same text and links read back. Prepare's work is used
// while the page holds what it was made from, and made again when the
// page changed since (the commit turns a page into an alias, dropping
// its text and links).
func TestStore_Prepare(t *testing.T) {
	ctx := context.Background()
	s, st := openBFS(t)
	text := pageText(t)
	links := []crawler.Link{{Target: u("/a"), Anchor: "a", Context: "the a page"}, {Target: u("/b"), Anchor: "b", Context: "the b page"}}
	plain := &crawler.Page{URL: u("/plain"), Status: 200, Title: "T", Text: text, Links: links}
	prep := &crawler.Page{URL: u("/prepared"), Status: 200, Title: "T", Text: text, Links: links}
	s.Prepare(prep)
	pp, ok := prep.Prepared.(*prepared)
	if !ok {
		t.Fatalf("Prepared = %T", prep.Prepared)
	}
	zt, zl := textAndLinks(prep)
	if b, ok := zt.([]byte); !ok || &b[0] != &pp.zText.([]byte)[0] || &zl[0] != &pp.zLinks[0] {
		t.Error("the prepared text and links are not used for the page they were made from")
	}
	changed := &crawler.Page{URL: u("/changed"), Text: "", Prepared: pp} // an alias drops text and links
	if zt, zl := textAndLinks(changed); zt != "" || zl != nil {
		t.Errorf("a page changed since Prepare stored %v and %d bytes of links, want neither", zt, len(zl))
	}
	if err := s.Commit(ctx, st.ID, []*crawler.Page{plain, prep}, nil); err != nil {
		t.Fatal(err)
	}
	var got [2]struct {
		text  string
		links []byte
	}
	for i, path := range []string{"/plain", "/prepared"} {
		err := s.DB().QueryRow(`SELECT scent_text(p.text), p.links FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`,
			"http://a.test"+path).Scan(&got[i].text, &got[i].links)
		if err != nil {
			t.Fatal(err)
		}
	}
	if got[0].text != text || got[1].text != text || !bytes.Equal(got[0].links, got[1].links) || len(got[0].links) == 0 {
		t.Errorf("prepared page stored %d bytes of text, %d of links; unprepared %d and %d; want the same", len(got[1].text), len(got[1].links), len(got[0].text), len(got[0].links))
	}
}

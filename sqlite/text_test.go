package sqlite

import (
	"context"
	"database/sql"
	"fmt"
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
	s, _ := open(t)
	st, err := s.OpenCrawl(ctx, crawler.CrawlSpec{Name: "c", Strategy: crawler.StrategyBFS, Stacks: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
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
	err = s.EachText(ctx, st.ID, func(r *TextRow) error {
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
	if want := "…reconnaissance des formes en [robotique] mobile, Ngô Thanh Nhàn, linguiste à l'université — Überblick…"; res[0].Snippet != want || res[0].Title != "Équipe" {
		t.Errorf("snippet %q, want %q", res[0].Snippet, want)
	}
	res, err = s.Search(ctx, "replication", 10)
	if err != nil || len(res) != 1 || !strings.Contains(res[0].Snippet, "[replication]") || res[0].URL != u("/page").String() {
		t.Errorf("Search(replication) = %+v, %v", res, err)
	}
}

// migrateTo makes a database at path with the schema of version n, as
// the scent of that version made it.
func migrateTo(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:n] {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if step := migrationSteps[m.version]; step != nil {
			if err := step(context.Background(), tx); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, n)); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestMigrate_pageText: a database of schema 12, whose texts are plain,
// is upgraded: its texts are compressed, read back the same by every
// reader, and the pages it had indexed for search (and only those) are
// found with the same snippets.
func TestMigrate_pageText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v12.db")
	db := migrateTo(t, path, 12)
	page := pageText(t)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'bfs', '[""]', '[]', '{}', '2024-01-01T00:00:00Z')`, nil},
		{`INSERT INTO urls(id, crawl_id, url, host, state) VALUES (1, 1, 'http://a/', 'a', 2), (2, 1, 'http://a/dup', 'a', 2), (3, 1, 'http://a/fr', 'a', 2), (4, 1, 'http://a/404', 'a', 2)`, nil},
		{`INSERT INTO pages(id, crawl_id, ord, url_id, url, final_url, topic, depth, status, fetched_at, duration_ms, size, content_type, etag, modified, content_hash, title, text, failure, duplicate_of)
			VALUES (1, 1, 1, 1, 'http://a/', 'http://a/', '', 0, 200, '2024-01-01T00:00:00Z', 1, 10, 'text/html', '', '', 'h1', 'Maria', ?, '', NULL),
			(2, 1, 2, 2, 'http://a/dup', 'http://a/dup', '', 1, 200, '2024-01-01T00:00:01Z', 1, 10, 'text/html', '', '', 'h2', 'Maria', ?, '', 1),
			(3, 1, 3, 3, 'http://a/fr', 'http://a/fr', '', 1, 200, '2024-01-01T00:00:02Z', 1, 10, 'text/html', '', '', 'h3', 'Équipe', ?, '', NULL),
			(4, 1, 4, 4, 'http://a/404', 'http://a/404', '', 1, 404, '2024-01-01T00:00:03Z', 1, 10, 'text/plain', '', '', '', '', '', 'http 404', NULL)`,
			[]any{page, page + " Copy.", nonASCII}},
		{`INSERT INTO search(docid, title, text) VALUES (1, 'Maria', ?), (3, 'Équipe', ?)`, []any{page, nonASCII}},
		{`INSERT INTO page_versions(page_id, version, fetched_at, status, size, content_type, etag, modified, content_hash, title, text)
			VALUES (3, 1, '2024-01-01T00:00:02.000000000Z', 200, 10, 'text/html', '', '', 'h3', 'Équipe', ?),
			(3, 2, '2024-01-02T00:00:00.000000000Z', 200, 10, 'text/html', '', '', 'h4', 'Équipe', ?)`, []any{nonASCII, nonASCII + " v2"}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	db.Close()

	if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), "older") {
		t.Errorf("read-only open of schema 12: %v, want it refused as older", err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var version, blobs, versionBlobs int
	s.DB().QueryRow(`PRAGMA user_version`).Scan(&version)
	s.DB().QueryRow(`SELECT COUNT(*) FROM pages WHERE typeof(text) = 'blob'`).Scan(&blobs)
	s.DB().QueryRow(`SELECT COUNT(*) FROM page_versions WHERE typeof(text) = 'blob'`).Scan(&versionBlobs)
	if version != SchemaVersion() || blobs != 3 || versionBlobs != 2 {
		t.Errorf("after migration: version %d, %d page texts and %d version texts compressed; want %d, 3, 2", version, blobs, versionBlobs, SchemaVersion())
	}
	want := map[int64]string{1: page, 2: page + " Copy.", 3: nonASCII}
	n := 0
	err = s.EachText(ctx, 1, func(r *TextRow) error {
		n++
		if r.Text != want[r.ID] {
			t.Errorf("EachText page %d = %.60q…", r.ID, r.Text)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("EachText read %d pages, %v", n, err)
	}
	if txt, err := s.VersionText(ctx, 1, 1); err != nil || txt != page {
		t.Errorf("VersionText(1, 1) = %.60q…, %v", txt, err)
	}
	if txt, err := s.VersionText(ctx, 3, 2); err != nil || txt != nonASCII+" v2" {
		t.Errorf("VersionText(3, 2) = %.60q…, %v", txt, err)
	}
	res, err := s.Search(ctx, "replication", 10)
	if err != nil || len(res) != 1 || res[0].PageID != 1 || !strings.Contains(res[0].Snippet, "[replication]") {
		t.Errorf("Search(replication) = %+v, %v; want page 1 only (2 is a duplicate)", res, err)
	}
	res, err = s.Search(ctx, "linguiste", 10)
	if err != nil || len(res) != 1 || res[0].PageID != 3 || !strings.Contains(res[0].Snippet, "Thanh Nhàn, [linguiste] à l'université — Überblick über Ζήτα 日本語の文章") {
		t.Errorf("Search(linguiste) = %+v, %v", res, err)
	}
	if res, err := s.Search(ctx, "copy", 10); err != nil || len(res) != 0 {
		t.Errorf("Search(copy) = %+v, %v; want nothing (only the duplicate has the word)", res, err)
	}
	// Read-only, as report and export open it.
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if res, err := ro.Search(ctx, "replication", 10); err != nil || len(res) != 1 || !strings.Contains(res[0].Snippet, "[replication]") {
		t.Errorf("read-only Search(replication) = %+v, %v", res, err)
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

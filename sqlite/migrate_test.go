package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
)

// migrateTo makes a database at path with the schema of version n, as
// the scent of that version made it.
func migrateTo(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, path)
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
		if _, err := tx.Exec(m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if step := migrationSteps[m.Version]; step != nil {
			if err := step(context.Background(), tx); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
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

// TestMigrate_v12: a database of schema 12, whose texts are plain and
// whose URLs are stored in full, is upgraded: its texts are compressed,
// read back the same by every reader, the pages it had indexed for
// search (and only those) are found with the same snippets, and final
// URLs and exchange targets that repeat the page's URL are stored empty
// and read back whole.
func TestMigrate_v12(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v12.db")
	db := migrateTo(t, path, 12)
	page := pageText(t)
	req, resp := (&fetch.Exchange{Request: []byte("GET / HTTP/1.1\r\n\r\n"), Response: []byte("HTTP/1.1 200 OK\r\n\r\n")}).Deflated()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'bfs', '[""]', '[]', '{}', '2024-01-01T00:00:00Z')`, nil},
		{`INSERT INTO urls(id, crawl_id, url, host, state) VALUES (1, 1, 'http://a/', 'a', 2), (2, 1, 'http://a/dup', 'a', 2), (3, 1, 'http://a/fr', 'a', 2), (4, 1, 'http://a/404', 'a', 2)`, nil},
		{`INSERT INTO pages(id, crawl_id, ord, url_id, url, final_url, topic, depth, status, fetched_at, duration_ms, size, content_type, etag, modified, content_hash, title, text, failure, duplicate_of)
			VALUES (1, 1, 1, 1, 'http://a/', 'http://a/', '', 0, 200, '2024-01-01T00:00:00Z', 1, 10, 'text/html', '', '', 'h1', 'Maria', ?, '', NULL),
			(2, 1, 2, 2, 'http://a/dup', 'http://a/dup', '', 1, 200, '2024-01-01T00:00:01Z', 1, 10, 'text/html', '', '', 'h2', 'Maria', ?, '', 1),
			(3, 1, 3, 3, 'http://a/fr', 'http://a/fr/', '', 1, 200, '2024-01-01T00:00:02Z', 1, 10, 'text/html', '', '', 'h3', 'Équipe', ?, '', NULL),
			(4, 1, 4, 4, 'http://a/404', 'http://a/404', '', 1, 404, '2024-01-01T00:00:03Z', 1, 10, 'text/plain', '', '', '', '', '', 'http 404', NULL)`,
			[]any{page, page + " Copy.", nonASCII}},
		{`INSERT INTO search(docid, title, text) VALUES (1, 'Maria', ?), (3, 'Équipe', ?)`, []any{page, nonASCII}},
		{`INSERT INTO raw_exchanges(page_id, hop, url, sent_at, truncated, request, response, response_size)
			VALUES (1, 0, 'http://a/', '2024-01-01T00:00:00Z', 0, ?, ?, 9), (3, 0, 'http://a/fr', '2024-01-01T00:00:02Z', 0, ?, ?, 9),
			(3, 1, 'http://a/fr/', '2024-01-01T00:00:02Z', 0, ?, ?, 9), (4, 0, 'http://a/404?q=it%27s', '2024-01-01T00:00:03Z', 0, ?, ?, 9)`,
			[]any{req, resp, req, resp, req, resp, req, resp}},
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
	// URLs stored twice are stored once; every one reads back. The
	// page's own URL and its signature are no longer columns of pages.
	var dropped int
	s.DB().QueryRow(`SELECT COUNT(*) FROM pragma_table_info('pages') WHERE name IN ('url', 'signature')`).Scan(&dropped)
	if dropped != 0 {
		t.Errorf("pages still has %d of the columns url and signature", dropped)
	}
	var finals, targets string
	s.DB().QueryRow(`SELECT group_concat(final_url, ',') FROM (SELECT final_url FROM pages ORDER BY id)`).Scan(&finals)
	s.DB().QueryRow(`SELECT group_concat(url, ',') FROM (SELECT url FROM raw_exchanges ORDER BY id)`).Scan(&targets)
	if finals != ",,http://a/fr/," || targets != ",,,http://a/404?q=it%27s" {
		t.Errorf("stored final URLs %q, exchange targets %q", finals, targets)
	}
	var read []string
	err = s.EachFetch(ctx, 1, func(p *crawler.Page) error {
		r := p.URL.String() + " → " + p.FinalURL.String()
		for _, e := range p.Exchanges {
			r += " " + e.URL
		}
		read = append(read, r)
		return nil
	})
	wantRead := []string{"http://a/ → http://a/ http://a/", "http://a/dup → http://a/dup", "http://a/fr → http://a/fr/ http://a/fr http://a/fr/",
		"http://a/404 → http://a/404 http://a/404?q=it%27s"}
	if err != nil || strings.Join(read, "\n") != strings.Join(wantRead, "\n") {
		t.Errorf("pages read back (%v):\n%s\nwant\n%s", err, strings.Join(read, "\n"), strings.Join(wantRead, "\n"))
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

// TestOpen_pageSize: a new database gets pages of pageSize bytes and WAL
// mode; an existing one keeps its page size.
func TestOpen_pageSize(t *testing.T) {
	ctx := context.Background()
	check := func(path string, want int) {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var size int
		var mode string
		s.DB().QueryRow(`PRAGMA page_size`).Scan(&size)
		s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
		if size != want || mode != "wal" {
			t.Errorf("%s: page size %d, journal mode %s; want %d, wal", filepath.Base(path), size, mode, want)
		}
	}
	fresh := filepath.Join(t.TempDir(), "new.db")
	check(fresh, pageSize)
	check(fresh, pageSize)
	old := filepath.Join(t.TempDir(), "old.db")
	db := migrateTo(t, old, 12)
	var size int
	db.QueryRow(`PRAGMA page_size`).Scan(&size)
	db.Close()
	if size == pageSize {
		t.Fatalf("the old database already has pages of %d bytes", size)
	}
	check(old, size)
}

// TestMigrate_v16 brings a frontier of schema 16 (frontier_shallow over
// every entry) to the partial indexes: the entries of a reserve are
// marked as a fallback stack's and served shallowest first through
// frontier_fallback, the stack's are not.
func TestMigrate_v16(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v16.db")
	db := migrateTo(t, path, 16)
	for _, q := range []string{
		`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'link', '["t", "t~reserve"]', '["t"]', '{}', '2024-01-01T00:00:00Z')`,
		`INSERT INTO urls(id, crawl_id, url, host, state) VALUES (1, 1, 'http://a/1', 'a', 0), (2, 1, 'http://a/2', 'a', 0), (3, 1, 'http://a/3', 'a', 0)`,
		`INSERT INTO frontier(crawl_id, topic, url_id, depth, score) VALUES (1, 't', 1, 3, 0.9), (1, 't~reserve', 2, 4, 0.2), (1, 't~reserve', 3, 2, 0.1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var marked string
	s.DB().QueryRow(`SELECT group_concat(topic || '=' || fallback, ' ') FROM (SELECT topic, fallback FROM frontier ORDER BY seq)`).Scan(&marked)
	if marked != "t=0 t~reserve=1 t~reserve=1" {
		t.Errorf("fallback marks after migration: %q", marked)
	}
	es, err := s.Pop(ctx, 1, "t~reserve", crawler.Shallowest, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].URL.String() != "http://a/3" || es[1].URL.String() != "http://a/2" {
		t.Errorf("reserve popped %v, want http://a/3 (depth 2), then http://a/2", es)
	}
}

// TestMigrate_v18: the learner's state of a database of schema 18, one
// value in learners, is read back whole as the one part it becomes, and
// the next save writes it in parts.
func TestMigrate_v18(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v18.db")
	db := migrateTo(t, path, 18)
	state := strings.Repeat("learner state ", maxLearnerPart/7)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO crawls(id, name, strategy, stacks, topics, config, created_at) VALUES (1, 'c', 'link', '["t"]', '["t"]', '{}', '2024-01-01T00:00:00Z')`, nil},
		{`INSERT INTO learners(crawl_id, state, saved_at) VALUES (1, ?, '2024-01-01T00:00:00Z')`, []any{[]byte(state)}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.learnerState(ctx, 1)
	if err != nil || string(got) != state {
		t.Fatalf("state after the migration: %d bytes (%v), want the %d saved", len(got), err, len(state))
	}
	if err := s.SaveLearner(ctx, 1, got); err != nil {
		t.Fatal(err)
	}
	var parts int
	s.DB().QueryRow(`SELECT COUNT(*) FROM learner_parts WHERE crawl_id = 1 AND length(data) <= ?`, maxLearnerPart).Scan(&parts)
	if want := (len(state) + maxLearnerPart - 1) / maxLearnerPart; parts != want {
		t.Errorf("saved again: %d parts of at most %d bytes, want %d", parts, maxLearnerPart, want)
	}
}

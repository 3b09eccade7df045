package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mattn/go-sqlite3"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/deflate"
)

// Page text is stored compressed (schema version 13 on): pages.text and
// page_versions.text hold a BLOB, the text's UTF-8 bytes compressed with
// DEFLATE (RFC 1951) against the preset dictionary textDict, or the TEXT
// itself when compressing would not make it shorter (an empty or very
// short text). Readers tell the two apart by the value's storage class
// (a TEXT column keeps a BLOB as it is given), in Go through textColumn
// and in SQL through the function scent_text, which every connection of
// a Store has. The full-text index reads the text of the pages it holds
// through the view page_texts, which decompresses it.

// textDict is the preset dictionary of stored page text: common English
// words and the words and phrases of personal, course and department
// pages. The texts of the WebKB replay compress to 6 % fewer bytes with
// it than without. Stored texts depend on these exact bytes: the
// dictionary must never change (a new one needs a new stored format).
var textDict = []byte("the of and to a in is that for it as was with be by on not he I this are or his from at which but have an they you were her she there one all we their has been if more when will would who so no can had my do what may about out other only into some time than them these its then two first any like new our could also over such most used use very after where must much made your many should those well each way down through just because between same being both under people even work back here again years part life make how state long great world own little good while " +
	"Home Page home page Welcome to the Department of Computer Science University of Professor Associate Professor Assistant Professor Research Interests Publications Email: E-mail: Phone: Fax: Office: Office Hours Last modified: Last updated Copyright All rights reserved. Click here for more information Contact Information Graduate Student Students Projects Research Courses Course Teaching Lecture Homework Syllabus Schedule Introduction to Systems Software Programming Network Computer Science Engineering Department Technical Report Conference on Proceedings of the International Journal of " +
	"January February March April June July August September October November December Monday Tuesday Wednesday Thursday Friday Saturday Sunday Spring Fall Summer Winter Room Building Hall http://www. .edu/ .html index.html mailto: Tel: Mathematics Data Design Analysis Theory Algorithms Languages Database Artificial Intelligence Operating Systems Distributed Parallel Computing Links Resume Personal Interests Education Ph.D. M.S. B.S. Group Laboratory Lab Faculty Staff Center Institute Technology Papers Problem Assignment Exam Final Midterm Project Grades Class Notes Reading Textbook Prerequisites Instructor Teaching Assistant TA Announcements Due Section Chapter")

// textLevel is the DEFLATE level of stored text: a typical page text
// of 2.75 KB compresses to 1,107 bytes in about 35 µs
// (BenchmarkStoreText), once, when it is stored; level 6 takes 2 % more
// bytes for 17 % less time.
const textLevel = 7

var textWriters = deflate.NewWriters(textLevel, textDict, 4)

// storeText returns the value to store for text: its compressed bytes
// (a BLOB) when they are shorter, else the text itself.
func storeText(text string) any {
	if len(text) < 8 {
		return text
	}
	z := textWriters.Append(make([]byte, 0, len(text)/2+64), []byte(text))
	if len(z) >= len(text) {
		return text
	}
	return z
}

// prepared is what Prepare made of a page: its text and links as a page
// row keeps them, and what they were made from.
type prepared struct {
	text   string        // the page's text
	first  *crawler.Link // its first link (nil: none)
	links  int           // its number of links
	zText  any           // storeText(text)
	zLinks []byte        // encodeLinks of the links
}

// Prepare implements crawler.Preparer: it compresses the page's text and
// links, on the goroutine of the fetch.
func (s *Store) Prepare(p *crawler.Page) {
	pp := &prepared{text: p.Text, links: len(p.Links), zText: storeText(p.Text), zLinks: encodeLinks(storedLinks(p.Links))}
	if len(p.Links) > 0 {
		pp.first = &p.Links[0]
	}
	p.Prepared = pp
}

var _ crawler.Preparer = (*Store)(nil)

// textAndLinks returns p's text and links as a page row keeps them: those
// Prepare made when p still holds what they were made from (an alias
// has dropped its text and links since), else made now.
func textAndLinks(p *crawler.Page) (text any, links []byte) {
	if pp, ok := p.Prepared.(*prepared); ok && pp.text == p.Text && pp.links == len(p.Links) &&
		(pp.links == 0 || pp.first == &p.Links[0]) {
		return pp.zText, pp.zLinks
	}
	return storeText(p.Text), encodeLinks(storedLinks(p.Links))
}

// inflateText decompresses a text stored by storeText.
func inflateText(b []byte) (string, error) {
	out, err := deflate.Inflate(b, textDict, 0)
	if err != nil {
		return "", fmt.Errorf("inflate page text: %w", err)
	}
	return string(out), nil
}

// readText returns the text of a stored value: a BLOB is compressed
// text, a TEXT the text itself, NULL the empty text.
func readText(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []byte:
		return inflateText(v)
	default:
		return "", fmt.Errorf("page text stored as %T", v)
	}
}

// textColumn scans a stored text column (see storeText) into S.
type textColumn struct{ S string }

var _ sql.Scanner = (*textColumn)(nil)

// Scan implements sql.Scanner.
func (t *textColumn) Scan(v any) error {
	s, err := readText(v)
	if err != nil {
		return err
	}
	t.S = s
	return nil
}

// sqlText is the SQL function scent_text(x): the text of a stored text
// value x.
func sqlText(v any) (string, error) { return readText(v) }

// driverName is the database/sql driver of every Store: go-sqlite3 with
// the functions scent's schema uses registered on each connection.
const driverName = "sqlite3_scent"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return c.RegisterFunc("scent_text", sqlText, true)
	}})
}

// compressTexts is the step of migration 13: it compresses the texts
// stored before it in pages and page_versions.
func compressTexts(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"pages", "page_versions"} {
		if err := compressTable(ctx, tx, table); err != nil {
			return fmt.Errorf("compress %s.text: %w", table, err)
		}
	}
	return nil
}

func compressTable(ctx context.Context, tx *sql.Tx, table string) error {
	upd, err := tx.PrepareContext(ctx, `UPDATE `+table+` SET text = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	// In batches by id: the rows of a batch are read before they are
	// written.
	type row struct {
		id   int64
		text string
	}
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT id, text FROM `+table+` WHERE id > ? AND typeof(text) = 'text' ORDER BY id LIMIT 256`, after)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.text); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			if v, ok := storeText(r.text).([]byte); ok {
				if _, err := upd.ExecContext(ctx, v, r.id); err != nil {
					return err
				}
			}
			after = r.id
		}
	}
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/urlnorm"
)

var _ revisit.Store = (*Store)(nil)

// checkTime is the format of the times of page_versions and change_log:
// UTC with a fixed width, so that they sort as text.
const checkTime = "2006-01-02T15:04:05.000000000Z"

func formatCheckTime(t time.Time) string { return t.UTC().Format(checkTime) }

// RevisitPages returns up to limit pages of the crawl fetched without
// failure whose ID is greater than after, in ID order, each with the
// validators and content hash of its latest version and the time of its
// latest check (or first fetch).
func (s *Store) RevisitPages(ctx context.Context, crawl, after int64, limit int) ([]revisit.Page, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT p.id, `+pageURLColumn+`, `+finalURLColumn+`, p.fetched_at, p.etag, p.modified, p.content_hash,
		v.version, v.etag, v.modified, v.content_hash,
		(SELECT MAX(c.checked_at) FROM change_log c WHERE c.page_id = p.id),
		(SELECT MAX(su.lastmod) FROM sitemap_urls su WHERE su.url IN (`+pageURLColumn+`, `+finalURLColumn+`))
		FROM pages p
		LEFT JOIN page_versions v ON v.page_id = p.id
			AND v.version = (SELECT MAX(version) FROM page_versions WHERE page_id = p.id)
		WHERE p.crawl_id = ? AND p.failure = '' AND p.id > ?
		ORDER BY p.id LIMIT ?`, crawl, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read pages to revisit: %w", err)
	}
	defer rows.Close()
	var out []revisit.Page
	for rows.Next() {
		var (
			p                       revisit.Page
			raw, final, fetched     string
			version                 sql.NullInt64
			vETag, vModified, vHash sql.NullString
			checked, lastmod        sql.NullString
			pETag, pModified, pHash string
		)
		if err := rows.Scan(&p.ID, &raw, &final, &fetched, &pETag, &pModified, &pHash,
			&version, &vETag, &vModified, &vHash, &checked, &lastmod); err != nil {
			return nil, fmt.Errorf("read pages to revisit: %w", err)
		}
		u, err := urlnorm.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("read pages to revisit: page %d: %w", p.ID, err)
		}
		p.URL = u
		if p.FinalURL, err = urlnorm.Parse(final); err != nil {
			return nil, fmt.Errorf("read pages to revisit: page %d: final URL: %w", p.ID, err)
		}
		if version.Valid {
			p.Version, p.ETag, p.Modified, p.ContentHash = int(version.Int64), vETag.String, vModified.String, vHash.String
		} else {
			p.Version, p.ETag, p.Modified, p.ContentHash = 1, pETag, pModified, pHash
		}
		if p.FetchedAt, err = time.Parse(timeFormat, fetched); err != nil {
			return nil, fmt.Errorf("read pages to revisit: page %d time: %w", p.ID, err)
		}
		when := fetched
		layout := timeFormat
		if checked.Valid {
			when, layout = checked.String, checkTime
		}
		if p.CheckedAt, err = time.Parse(layout, when); err != nil {
			return nil, fmt.Errorf("read pages to revisit: page %d time: %w", p.ID, err)
		}
		if lastmod.Valid {
			p.SitemapLastMod, _ = time.Parse(timeFormat, lastmod.String)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read pages to revisit: %w", err)
	}
	return out, nil
}

// ErrNoVersion means the page has no version of that number; it is
// revisit.ErrNoVersion.
var ErrNoVersion = revisit.ErrNoVersion

// VersionText returns the extracted text of a version of a page; version
// 1 is the page as the crawl stored it.
func (s *Store) VersionText(ctx context.Context, page int64, version int) (string, error) {
	var text textColumn
	err := s.db.QueryRowContext(ctx, `SELECT text FROM page_versions WHERE page_id = ? AND version = ?`, page, version).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) && version == 1 {
		err = s.db.QueryRowContext(ctx, `SELECT text FROM pages WHERE id = ? AND failure = ''`, page).Scan(&text)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("page %d version %d: %w", page, version, ErrNoVersion)
	}
	if err != nil {
		return "", fmt.Errorf("read page %d version %d: %w", page, version, err)
	}
	return text.S, nil
}

// RecordCheck appends c to the change log and, when c.New is set, stores
// the new version, in one transaction. Before the first new version of a
// page its crawled version is copied into page_versions as version 1, so
// that page_versions holds the whole history of every changed page.
// c.New.Number must be one more than the page's latest version.
func (s *Store) RecordCheck(ctx context.Context, c *revisit.Check) error {
	if c == nil {
		return errors.New("record check: nil check")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	defer tx.Rollback()
	if err := recordCheck(ctx, tx, c); err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	return nil
}

// recordCheck stores c's new version, if any, or else the new validators
// it has, and appends c to the change log, in tx.
func recordCheck(ctx context.Context, tx *sql.Tx, c *revisit.Check) error {
	if c.New != nil {
		if err := insertVersion(ctx, tx, c.PageID, c.New); err != nil {
			return err
		}
	}
	if v := c.Validators; v != nil && c.New == nil {
		// The latest version's: a stored one, else the crawled page.
		res, err := tx.ExecContext(ctx, `UPDATE page_versions SET etag = ?, modified = ? WHERE page_id = ?
			AND version = (SELECT MAX(version) FROM page_versions WHERE page_id = ?)`, v.ETag, v.Modified, c.PageID, c.PageID)
		if err != nil {
			return fmt.Errorf("validators: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE pages SET etag = ?, modified = ? WHERE id = ?`, v.ETag, v.Modified, c.PageID); err != nil {
				return fmt.Errorf("validators: %w", err)
			}
		}
	}
	changed := 0
	if c.Changed {
		changed = 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO change_log(page_id, checked_at, url, status, fetched_size, update_size, changed, version, failure)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.PageID, formatCheckTime(c.CheckedAt), c.URL.String(), c.Status, c.Size, c.UpdateSize, changed, c.Version, c.Failure)
	return err
}

func insertVersion(ctx context.Context, tx *sql.Tx, page int64, v *revisit.Version) error {
	var latest int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM page_versions WHERE page_id = ?`, page).Scan(&latest); err != nil {
		return err
	}
	if latest == 0 {
		var first revisit.Version
		var fetched string
		var text textColumn
		err := tx.QueryRowContext(ctx, `SELECT fetched_at, status, size, content_type, etag, modified, content_hash, title, text
			FROM pages WHERE id = ? AND failure = ''`, page).Scan(&fetched, &first.Status, &first.Size, &first.ContentType,
			&first.ETag, &first.Modified, &first.ContentHash, &first.Title, &text)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("page %d: %w", page, ErrNoVersion)
		}
		if err != nil {
			return err
		}
		first.Text = text.S
		if first.FetchedAt, err = time.Parse(timeFormat, fetched); err != nil {
			return fmt.Errorf("page %d fetch time: %w", page, err)
		}
		first.Number = 1
		if err := execVersion(ctx, tx, page, &first, false); err != nil {
			return err
		}
		latest = 1
	}
	if v.Number != latest+1 {
		return fmt.Errorf("new version %d of page %d does not follow the latest, %d", v.Number, page, latest)
	}
	return execVersion(ctx, tx, page, v, true)
}

func execVersion(ctx context.Context, tx *sql.Tx, page int64, v *revisit.Version, withChange bool) error {
	var ops [6]any
	var delta, dist, cs, ct any
	if withChange {
		o := v.Change.Ops
		ops = [6]any{o.Add, o.Copy, o.Drop, o.Shrink, o.Replace, o.Move}
		delta, dist, cs, ct = v.Change.Delta, v.Change.Distance, v.Costs.S, v.Costs.T
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO page_versions(page_id, version, fetched_at, status, size, content_type, etag, modified,
		content_hash, title, text, adds, copies, drops, shrinks, replaces, moves, delta, distance, cost_s, cost_t)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		page, v.Number, formatCheckTime(v.FetchedAt), v.Status, v.Size, v.ContentType, v.ETag, v.Modified,
		v.ContentHash, v.Title, storeText(v.Text), ops[0], ops[1], ops[2], ops[3], ops[4], ops[5], delta, dist, cs, ct)
	if err != nil {
		return fmt.Errorf("store version %d of page %d: %w", v.Number, page, err)
	}
	return nil
}

// PageVersions returns every stored version of a page, oldest first. A
// page that never changed has one version: the crawled page.
func (s *Store) PageVersions(ctx context.Context, page int64) ([]revisit.Version, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, fetched_at, status, size, content_type, etag, modified, content_hash,
		title, text, adds, copies, drops, shrinks, replaces, moves, delta, distance, cost_s, cost_t
		FROM page_versions WHERE page_id = ? ORDER BY version`, page)
	if err != nil {
		return nil, fmt.Errorf("read versions of page %d: %w", page, err)
	}
	defer rows.Close()
	var out []revisit.Version
	for rows.Next() {
		var (
			v                                 revisit.Version
			fetched                           string
			add, cp, drop, shrink, repl, move sql.NullInt64
			delta, dist, cs, ct               sql.NullFloat64
			text                              textColumn
		)
		if err := rows.Scan(&v.Number, &fetched, &v.Status, &v.Size, &v.ContentType, &v.ETag, &v.Modified, &v.ContentHash,
			&v.Title, &text, &add, &cp, &drop, &shrink, &repl, &move, &delta, &dist, &cs, &ct); err != nil {
			return nil, fmt.Errorf("read versions of page %d: %w", page, err)
		}
		v.Text = text.S
		v.FetchedAt, _ = time.Parse(checkTime, fetched)
		v.Change = change.Result{
			Ops: change.Ops{Add: int(add.Int64), Copy: int(cp.Int64), Drop: int(drop.Int64), Shrink: int(shrink.Int64),
				Replace: int(repl.Int64), Move: int(move.Int64)},
			Delta: delta.Float64, Distance: dist.Float64,
		}
		v.Costs = change.Costs{S: cs.Float64, T: ct.Float64}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read versions of page %d: %w", page, err)
	}
	if len(out) > 0 {
		return out, nil
	}
	var v revisit.Version
	var fetched string
	var text textColumn
	err = s.db.QueryRowContext(ctx, `SELECT fetched_at, status, size, content_type, etag, modified, content_hash, title, text
		FROM pages WHERE id = ?`, page).Scan(&fetched, &v.Status, &v.Size, &v.ContentType, &v.ETag, &v.Modified, &v.ContentHash, &v.Title, &text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("page %d: %w", page, ErrNoVersion)
	}
	if err != nil {
		return nil, fmt.Errorf("read versions of page %d: %w", page, err)
	}
	v.Number = 1
	v.Text = text.S
	v.FetchedAt, _ = time.Parse(timeFormat, fetched)
	return []revisit.Version{v}, nil
}

// EachCheck calls fn for every change-log row of the crawl's pages in
// the order the checks were recorded. The rows are read in batches, so fn may
// use the store and memory does not grow with the log. Checks read back
// have no New version.
func (s *Store) EachCheck(ctx context.Context, crawl int64, fn func(*revisit.Check) error) error {
	var after int64
	for {
		batch, err := s.checkBatch(ctx, crawl, after, 512)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := fn(&batch[i].Check); err != nil {
				return err
			}
			after = batch[i].id
		}
		if len(batch) < 512 {
			return nil
		}
	}
}

type logRow struct {
	id int64
	revisit.Check
}

// checkBatch reads change-log rows by row id, which follows the order in
// which checks were recorded and committed: SQLite has one writer at a
// time, which holds the database's write lock from its first insert to
// its commit, and a new row's id is one past the highest. So no check
// commits below an id already read, as one can on PostgreSQL.
func (s *Store) checkBatch(ctx context.Context, crawl, after int64, limit int) ([]logRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.page_id, c.checked_at, c.url, c.status, c.fetched_size, c.update_size,
		c.changed, c.version, c.failure
		FROM change_log c JOIN pages p ON p.id = c.page_id
		WHERE p.crawl_id = ? AND c.id > ? ORDER BY c.id LIMIT ?`, crawl, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	defer rows.Close()
	var out []logRow
	for rows.Next() {
		var r logRow
		var checked, raw string
		if err := rows.Scan(&r.id, &r.PageID, &checked, &raw, &r.Status, &r.Size, &r.UpdateSize, &r.Changed, &r.Version, &r.Failure); err != nil {
			return nil, fmt.Errorf("read change log: %w", err)
		}
		r.CheckedAt, _ = time.Parse(checkTime, checked)
		if u, err := urlnorm.Parse(raw); err == nil {
			r.URL = u
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	return out, nil
}

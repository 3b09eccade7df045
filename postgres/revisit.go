package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/change"
	"github.com/scent-crawler/scent/revisit"
	"github.com/scent-crawler/scent/urlnorm"
)

var _ revisit.Store = (*Store)(nil)

// ErrNoVersion means the page has no version of that number; it is
// revisit.ErrNoVersion.
var ErrNoVersion = revisit.ErrNoVersion

// ErrNoCrawl means the database has no crawl of that name (or none at
// all).
var ErrNoCrawl = errors.New("no such crawl")

// ErrRevisitBusy means another process is revisiting the crawl.
var ErrRevisitBusy = errors.New("the crawl is being revisited by another process")

// LeaseRevisit makes this process the one revisiting crawl (named name)
// until release is called, so that two revisits never check its pages at
// once; it fails with ErrRevisitBusy while another process revisits it.
// The lease is a session advisory lock on a connection kept for it: a
// process that dies gives it up with its session. (A connection lost and
// made anew, with the server restarted, holds it no more.) release must
// be called before Close.
func (s *Store) LeaseRevisit(ctx context.Context, crawl int64, name string) (release func(), err error) {
	key := lockKey("revisit", strconv.FormatInt(crawl, 10))
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lease the revisit of crawl %s: %w", name, err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("lease the revisit of crawl %s: %w", name, err)
	}
	if !ok {
		conn.Release()
		return nil, fmt.Errorf("%w: crawl %q; wait for that revisit to end or stop it", ErrRevisitBusy, name)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key)
		conn.Release()
	}, nil
}

// FindCrawl returns the ID and name of the crawl named name, or of the
// latest crawl created when name is empty (Crawl's), waiting for a lost
// server as every read of the store does.
func (s *Store) FindCrawl(ctx context.Context, name string) (int64, string, error) {
	c, err := s.Crawl(ctx, name)
	if err != nil {
		return 0, "", err
	}
	return c.ID, c.Name, nil
}

// RevisitPages returns up to limit pages of the crawl fetched without
// failure whose ID is greater than after, in ID order, each with the
// validators and content hash of its latest version and the time of its
// latest check (or first fetch). The store keeps no sitemaps, so
// SitemapLastMod is always zero. A read cut by the loss of the server is
// run again whole (see outage); the caller's next batch starts after the
// last page it was given.
func (s *Store) RevisitPages(ctx context.Context, crawl, after int64, limit int) ([]revisit.Page, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []revisit.Page
	err := s.retry(ctx, func() error {
		out = nil
		rows, err := s.pool.Query(ctx, `SELECT p.id, p.url, p.final_url, p.fetched_at, p.etag, p.modified, p.content_hash,
			v.version, v.etag, v.modified, v.content_hash,
			(SELECT max(c.checked_at) FROM change_log c WHERE c.page_id = p.id)
			FROM pages p
			LEFT JOIN LATERAL (SELECT version, etag, modified, content_hash FROM page_versions
				WHERE page_id = p.id ORDER BY version DESC LIMIT 1) v ON true
			WHERE p.crawl_id = $1 AND p.failure = '' AND p.id > $2
			ORDER BY p.id LIMIT $3`, crawl, after, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				p                       revisit.Page
				raw, final              string
				fetched                 time.Time
				pETag, pModified, pHash string
				version                 *int32
				vETag, vModified, vHash *string
				checked                 *time.Time
			)
			if err := rows.Scan(&p.ID, &raw, &final, &fetched, &pETag, &pModified, &pHash,
				&version, &vETag, &vModified, &vHash, &checked); err != nil {
				return err
			}
			u, err := urlnorm.Parse(raw)
			if err != nil {
				return fmt.Errorf("page %d: %w", p.ID, err)
			}
			p.URL = u
			p.FinalURL = u
			if final != "" {
				if p.FinalURL, err = urlnorm.Parse(final); err != nil {
					return fmt.Errorf("page %d: final URL: %w", p.ID, err)
				}
			}
			if version != nil {
				p.Version, p.ETag, p.Modified, p.ContentHash = int(*version), *vETag, *vModified, *vHash
			} else {
				p.Version, p.ETag, p.Modified, p.ContentHash = 1, pETag, pModified, pHash
			}
			p.CheckedAt = fetched.UTC()
			p.FetchedAt = fetched.UTC()
			if checked != nil {
				p.CheckedAt = checked.UTC()
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read pages to revisit: %w", err)
	}
	return out, nil
}

// VersionText returns the extracted text of a version of a page; version
// 1 is the page as the crawl stored it. It waits for a lost server (see
// outage).
func (s *Store) VersionText(ctx context.Context, page int64, version int) (string, error) {
	var text string
	err := s.retry(ctx, func() error {
		err := s.pool.QueryRow(ctx, `SELECT text FROM page_versions WHERE page_id = $1 AND version = $2`, page, version).Scan(&text)
		if errors.Is(err, pgx.ErrNoRows) && version == 1 {
			err = s.pool.QueryRow(ctx, `SELECT text FROM pages WHERE id = $1 AND failure = ''`, page).Scan(&text)
		}
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("page %d version %d: %w", page, version, ErrNoVersion)
	}
	if err != nil {
		return "", fmt.Errorf("read page %d version %d: %w", page, version, err)
	}
	return text, nil
}

// RecordCheck appends c to the change log and, when c.New is set, stores
// the new version, in one transaction. Before the first new version of a
// page its crawled version is copied into page_versions as version 1, so
// that page_versions holds the whole history of every changed page.
// c.New.Number must be one more than the page's latest version; the
// page's row is locked first, so that two processes checking one page at
// once store its versions one after the other (the second one's number
// then no longer follows and its check fails).
//
// A server lost during the transaction is waited for and the transaction
// run again (inTx); one whose COMMIT got no answer is found done by its
// token, so a check is recorded once however the connection fails.
func (s *Store) RecordCheck(ctx context.Context, c *revisit.Check) error {
	if c == nil {
		return errors.New("record check: nil check")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error { return recordCheck(ctx, tx, c) })
	if err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	return nil
}

// recordCheck stores c's new version, if any, and appends c to the
// change log, in tx. It first takes changeLogLock shared, before any row
// lock, so that EachCheck's exclusive wait never closes a cycle.
func recordCheck(ctx context.Context, tx pgx.Tx, c *revisit.Check) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, changeLogLock); err != nil {
		return err
	}
	if c.New != nil {
		if err := insertVersion(ctx, tx, c.PageID, c.New); err != nil {
			return err
		}
	}
	if v := c.Validators; v != nil && c.New == nil {
		// The latest version's: a stored one, else the crawled page.
		tag, err := tx.Exec(ctx, `UPDATE page_versions SET etag = $1, modified = $2 WHERE page_id = $3
			AND version = (SELECT max(version) FROM page_versions WHERE page_id = $3)`, v.ETag, v.Modified, c.PageID)
		if err != nil {
			return fmt.Errorf("validators: %w", err)
		}
		if tag.RowsAffected() == 0 {
			if _, err := tx.Exec(ctx, `UPDATE pages SET etag = $1, modified = $2 WHERE id = $3`, v.ETag, v.Modified, c.PageID); err != nil {
				return fmt.Errorf("validators: %w", err)
			}
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO change_log(page_id, checked_at, url, status, fetched_size, update_size, changed, version, failure)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		c.PageID, c.CheckedAt.UTC(), c.URL.String(), c.Status, c.Size, c.UpdateSize, c.Changed, c.Version, c.Failure)
	return err
}

func insertVersion(ctx context.Context, tx pgx.Tx, page int64, v *revisit.Version) error {
	var first revisit.Version
	var size int64
	err := tx.QueryRow(ctx, `SELECT fetched_at, status, size, content_type, etag, modified, content_hash, title, text
		FROM pages WHERE id = $1 AND failure = '' FOR UPDATE`, page).Scan(&first.FetchedAt, &first.Status, &size,
		&first.ContentType, &first.ETag, &first.Modified, &first.ContentHash, &first.Title, &first.Text)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("page %d: %w", page, ErrNoVersion)
	}
	if err != nil {
		return err
	}
	first.Size = int(size)
	var latest int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM page_versions WHERE page_id = $1`, page).Scan(&latest); err != nil {
		return err
	}
	if v.Number != max(latest, 1)+1 {
		return fmt.Errorf("new version %d of page %d does not follow the latest, %d", v.Number, page, max(latest, 1))
	}
	if latest == 0 {
		first.Number = 1
		if err := execVersion(ctx, tx, page, &first, false); err != nil {
			return err
		}
	}
	return execVersion(ctx, tx, page, v, true)
}

func execVersion(ctx context.Context, tx pgx.Tx, page int64, v *revisit.Version, withChange bool) error {
	var ops [6]any
	var delta, dist, cs, ct any
	if withChange {
		o := v.Change.Ops
		ops = [6]any{o.Add, o.Copy, o.Drop, o.Shrink, o.Replace, o.Move}
		delta, dist, cs, ct = v.Change.Delta, v.Change.Distance, v.Costs.S, v.Costs.T
	}
	_, err := tx.Exec(ctx, `INSERT INTO page_versions(page_id, version, fetched_at, status, size, content_type, etag, modified,
		content_hash, title, text, adds, copies, drops, shrinks, replaces, moves, delta, distance, cost_s, cost_t)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		page, v.Number, v.FetchedAt.UTC(), v.Status, v.Size, v.ContentType, v.ETag, v.Modified,
		v.ContentHash, v.Title, v.Text, ops[0], ops[1], ops[2], ops[3], ops[4], ops[5], delta, dist, cs, ct)
	if err != nil {
		return fmt.Errorf("store version %d of page %d: %w", v.Number, page, err)
	}
	return nil
}

// PageVersions returns every stored version of a page, oldest first. A
// page that never changed has one version: the crawled page. It waits
// for a lost server (see outage).
func (s *Store) PageVersions(ctx context.Context, page int64) ([]revisit.Version, error) {
	var out []revisit.Version
	err := s.retry(ctx, func() error {
		out = nil
		rows, err := s.pool.Query(ctx, `SELECT version, fetched_at, status, size, content_type, etag, modified, content_hash,
			title, text, adds, copies, drops, shrinks, replaces, moves, delta, distance, cost_s, cost_t
			FROM page_versions WHERE page_id = $1 ORDER BY version`, page)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				v                                 revisit.Version
				size                              int64
				add, cp, drop, shrink, repl, move *int32
				delta, dist, cs, ct               *float64
			)
			if err := rows.Scan(&v.Number, &v.FetchedAt, &v.Status, &size, &v.ContentType, &v.ETag, &v.Modified, &v.ContentHash,
				&v.Title, &v.Text, &add, &cp, &drop, &shrink, &repl, &move, &delta, &dist, &cs, &ct); err != nil {
				return err
			}
			v.Size, v.FetchedAt = int(size), v.FetchedAt.UTC()
			v.Change = change.Result{
				Ops: change.Ops{Add: intOr0(add), Copy: intOr0(cp), Drop: intOr0(drop), Shrink: intOr0(shrink),
					Replace: intOr0(repl), Move: intOr0(move)},
				Delta: floatOr0(delta), Distance: floatOr0(dist),
			}
			v.Costs = change.Costs{S: floatOr0(cs), T: floatOr0(ct)}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil || len(out) > 0 {
			return err
		}
		v := revisit.Version{Number: 1}
		var size int64
		err = s.pool.QueryRow(ctx, `SELECT fetched_at, status, size, content_type, etag, modified, content_hash, title, text
			FROM pages WHERE id = $1`, page).Scan(&v.FetchedAt, &v.Status, &size, &v.ContentType, &v.ETag, &v.Modified, &v.ContentHash, &v.Title, &v.Text)
		if err != nil {
			return err
		}
		v.Size, v.FetchedAt = int(size), v.FetchedAt.UTC()
		out = []revisit.Version{v}
		return nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("page %d: %w", page, ErrNoVersion)
	}
	if err != nil {
		return nil, fmt.Errorf("read versions of page %d: %w", page, err)
	}
	return out, nil
}

func intOr0(p *int32) int {
	if p == nil {
		return 0
	}
	return int(*p)
}

func floatOr0(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// checkBatch is how many change-log rows EachCheck reads at a time.
const checkBatch = 512

// changeLogLock is the advisory lock that orders EachCheck after the
// change-log inserts in flight. change_log.id comes from a sequence,
// which hands ids out as rows are inserted, not as they commit (its
// CACHE is 1, so across sessions too): a check may commit after another
// with a higher id, and a read by id that already went past the higher
// one would never give it. Every transaction that appends to the change
// log holds the lock shared (recordCheck); EachCheck takes it exclusive
// for a moment, which waits for those transactions to end (and makes
// new ones wait behind it), and reads the highest id then: every id up
// to that bound is committed or will never be, and every later insert
// gets a higher id. (A sequence caching ids per session would break
// this: a session could insert later with an id below the bound.) One
// lock serves every crawl: a check knows its page, not its crawl, the
// exclusive hold lasts a moment, and the ids of all crawls come from
// the one sequence, so the bound over the whole log bounds the crawl's.
var changeLogLock = lockKey("scent change log")

// EachCheck calls fn for every change-log row of the crawl's pages in
// the order the checks were recorded: the log as of the moment it
// starts, every check committed before then and those in flight then
// (it waits for them), and none recorded after. The rows are read in
// batches of ids up to that moment's highest, so fn may use the store
// and memory does not grow with the log; a batch whose read is cut by
// the loss of the server is read again (see outage), from after the last
// row given to fn, so fn is given every row once. Checks read back have
// no New version.
func (s *Store) EachCheck(ctx context.Context, crawl int64, fn func(*revisit.Check) error) error {
	bound, err := s.checkBound(ctx)
	if err != nil {
		return err
	}
	var after int64
	for {
		ids, batch, err := s.checks(ctx, crawl, after, bound, checkBatch)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := fn(&batch[i]); err != nil {
				return err
			}
			after = ids[i]
		}
		if len(batch) < checkBatch {
			return nil
		}
	}
}

// checkBound waits for the change-log inserts in flight to end and
// returns the highest change-log id then (see changeLogLock). The lock
// and the read are two statements of a READ COMMITTED transaction, so
// that the read's snapshot is taken once the lock is held; the lock goes
// with the transaction.
func (s *Store) checkBound(ctx context.Context) (int64, error) {
	var bound int64
	err := s.retry(ctx, func() error {
		return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, changeLogLock); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `SELECT COALESCE(max(id), 0) FROM change_log`).Scan(&bound)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("read change log: %w", err)
	}
	return bound, nil
}

// checks reads up to limit change-log rows of the crawl whose id is
// greater than after and at most bound, by id, with their ids.
func (s *Store) checks(ctx context.Context, crawl, after, bound int64, limit int) ([]int64, []revisit.Check, error) {
	var ids []int64
	var out []revisit.Check
	err := s.retry(ctx, func() error {
		ids, out = nil, nil
		rows, err := s.pool.Query(ctx, `SELECT c.id, c.page_id, c.checked_at, c.url, c.status, c.fetched_size, c.update_size,
			c.changed, c.version, c.failure
			FROM change_log c JOIN pages p ON p.id = c.page_id
			WHERE p.crawl_id = $1 AND c.id > $2 AND c.id <= $3 ORDER BY c.id LIMIT $4`, crawl, after, bound, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, size int64
			var raw string
			var c revisit.Check
			if err := rows.Scan(&id, &c.PageID, &c.CheckedAt, &raw, &c.Status, &size, &c.UpdateSize, &c.Changed, &c.Version, &c.Failure); err != nil {
				return err
			}
			c.Size, c.CheckedAt = int(size), c.CheckedAt.UTC()
			if u, err := urlnorm.Parse(raw); err == nil {
				c.URL = u
			}
			ids = append(ids, id)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read change log: %w", err)
	}
	return ids, out, nil
}

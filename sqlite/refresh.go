package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/scent-crawler/scent/revisit"
)

var _ revisit.WatchStore = (*Store)(nil)

// Schedule returns the stored schedule of the crawl's pages, by page ID.
func (s *Store) Schedule(ctx context.Context, crawl int64) (map[int64]revisit.Due, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.page_id, r.next_due, r.rate, r.grp, r.hour, r.gone
		FROM refresh_schedule r JOIN pages p ON p.id = r.page_id WHERE p.crawl_id = ?`, crawl)
	if err != nil {
		return nil, fmt.Errorf("read refresh schedule: %w", err)
	}
	defer rows.Close()
	out := map[int64]revisit.Due{}
	for rows.Next() {
		var id int64
		var d revisit.Due
		var next string
		if err := rows.Scan(&id, &next, &d.Rate, &d.Group, &d.Hour, &d.Gone); err != nil {
			return nil, fmt.Errorf("read refresh schedule: %w", err)
		}
		if d.Next, err = time.Parse(checkTime, next); err != nil {
			return nil, fmt.Errorf("read refresh schedule: page %d: %w", id, err)
		}
		out[id] = d
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read refresh schedule: %w", err)
	}
	return out, nil
}

// RecordScheduledCheck is RecordCheck that also stores the page's next
// due time, in the same transaction.
func (s *Store) RecordScheduledCheck(ctx context.Context, c *revisit.Check, d revisit.Due) error {
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
	if _, err := tx.ExecContext(ctx, `INSERT INTO refresh_schedule(page_id, next_due, rate, grp, hour, gone) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(page_id) DO UPDATE SET next_due = excluded.next_due, rate = excluded.rate, grp = excluded.grp,
		hour = excluded.hour, gone = excluded.gone`,
		c.PageID, formatCheckTime(d.Next), d.Rate, d.Group, d.Hour, d.Gone); err != nil {
		return fmt.Errorf("record schedule of page %d: %w", c.PageID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	return nil
}

// ChecksSince counts the change-log rows of the crawl's pages checked at
// or after t.
func (s *Store) ChecksSince(ctx context.Context, crawl int64, t time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM change_log c JOIN pages p ON p.id = c.page_id
		WHERE p.crawl_id = ? AND c.checked_at >= ?`, crawl, formatCheckTime(t)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count checks: %w", err)
	}
	return n, nil
}

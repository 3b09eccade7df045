package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/revisit"
)

var _ revisit.WatchStore = (*Store)(nil)

// Schedule returns the stored schedule of the crawl's pages, by page ID.
// It waits for a lost server (see outage).
func (s *Store) Schedule(ctx context.Context, crawl int64) (map[int64]revisit.Due, error) {
	var out map[int64]revisit.Due
	err := s.retry(ctx, func() error {
		out = map[int64]revisit.Due{}
		rows, err := s.pool.Query(ctx, `SELECT r.page_id, r.next_due, r.rate, r.grp, r.hour, r.gone
			FROM refresh_schedule r JOIN pages p ON p.id = r.page_id WHERE p.crawl_id = $1`, crawl)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var d revisit.Due
			var hour int32
			if err := rows.Scan(&id, &d.Next, &d.Rate, &d.Group, &hour, &d.Gone); err != nil {
				return err
			}
			d.Next, d.Hour = d.Next.UTC(), int(hour)
			out[id] = d
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read refresh schedule: %w", err)
	}
	return out, nil
}

// RecordScheduledCheck is RecordCheck that also stores the page's next
// due time, in the same transaction: recorded once, as RecordCheck is,
// across a lost server.
func (s *Store) RecordScheduledCheck(ctx context.Context, c *revisit.Check, d revisit.Due) error {
	if c == nil {
		return errors.New("record check: nil check")
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := recordCheck(ctx, tx, c); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO refresh_schedule(page_id, next_due, rate, grp, hour, gone) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (page_id) DO UPDATE SET next_due = excluded.next_due, rate = excluded.rate, grp = excluded.grp,
			hour = excluded.hour, gone = excluded.gone`,
			c.PageID, d.Next.UTC(), d.Rate, d.Group, d.Hour, d.Gone)
		return err
	})
	if err != nil {
		return fmt.Errorf("record check of page %d: %w", c.PageID, err)
	}
	return nil
}

// ChecksSince counts the change-log rows of the crawl's pages checked at
// or after t. It waits for a lost server (see outage).
func (s *Store) ChecksSince(ctx context.Context, crawl int64, t time.Time) (int, error) {
	var n int
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT count(*) FROM change_log c JOIN pages p ON p.id = c.page_id
			WHERE p.crawl_id = $1 AND c.checked_at >= $2`, crawl, t.UTC()).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count checks: %w", err)
	}
	return n, nil
}

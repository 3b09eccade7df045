package sqlite

import (
	"context"
	"fmt"

	"github.com/scent-crawler/scent/fetch"
)

const (
	insertSitemapSQL = `INSERT INTO sitemaps(crawl_id, page_id, url, status, is_index, entries, failure)
		VALUES (?, ?, ?, ?, ?, ?, ?)`
	insertSitemapURLSQL = `INSERT INTO sitemap_urls(sitemap_id, url, lastmod) VALUES (?, ?, ?)`
)

// insertSitemaps stores the sitemaps read at a page's fetch.
func insertSitemaps(ctx context.Context, tx cachedTx, crawl, pageID int64, sms []fetch.Sitemap) error {
	if len(sms) == 0 {
		return nil
	}
	insURL, err := tx.PrepareContext(ctx, insertSitemapURLSQL)
	if err != nil {
		return err
	}
	defer insURL.Close()
	for _, sm := range sms {
		res, err := tx.exec(ctx, insertSitemapSQL, crawl, pageID, sm.URL, sm.Status, sm.Index, len(sm.Entries), sm.Failure)
		if err != nil {
			return fmt.Errorf("store sitemap %s: %w", sm.URL, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for _, e := range sm.Entries {
			var lm any
			if !e.LastMod.IsZero() {
				lm = e.LastMod.UTC().Format(timeFormat)
			}
			if _, err := insURL.ExecContext(ctx, id, e.Loc, lm); err != nil {
				return fmt.Errorf("store sitemap %s: %w", sm.URL, err)
			}
		}
	}
	return nil
}

// SitemapRow is a sitemap read during a crawl.
type SitemapRow struct {
	URL     string
	FoundAt string // URL of the fetch that found its site
	Status  int
	Index   bool
	Entries int
	Failure string
}

// Sitemaps lists the sitemaps read during crawl, in the order they were
// stored.
func (s *Store) Sitemaps(ctx context.Context, crawl int64) ([]SitemapRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.url, `+pageURLColumn+`, s.status, s.is_index, s.entries, s.failure
		FROM sitemaps s JOIN pages p ON p.id = s.page_id WHERE s.crawl_id = ? ORDER BY s.id`, crawl)
	if err != nil {
		return nil, fmt.Errorf("read sitemaps: %w", err)
	}
	defer rows.Close()
	var out []SitemapRow
	for rows.Next() {
		var r SitemapRow
		if err := rows.Scan(&r.URL, &r.FoundAt, &r.Status, &r.Index, &r.Entries, &r.Failure); err != nil {
			return nil, fmt.Errorf("read sitemaps: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

package postgres

import (
	"context"
	"fmt"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// EachFetch calls fn with every fetch committed to the crawl, in fetch
// order: URL, final URL, stack, depth, status, size, content type,
// content hash and failure (no text, links or scores). The rows are
// streamed.
func (s *Store) EachFetch(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error {
	rows, err := s.pool.Query(ctx, `SELECT url, final_url, topic, depth, status, fetched_at, size, content_type, content_hash, failure
		FROM pages WHERE crawl_id = $1 ORDER BY ord`, crawl)
	if err != nil {
		return fmt.Errorf("read pages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, final string
		var size int64
		p := &crawler.Page{}
		if err := rows.Scan(&u, &final, &p.Topic, &p.Depth, &p.Status, &p.FetchedAt, &size, &p.ContentType, &p.ContentHash, &p.Failure); err != nil {
			return fmt.Errorf("read pages: %w", err)
		}
		p.Size = int(size)
		p.URL, _ = urlnorm.Parse(u)
		p.FinalURL, _ = urlnorm.Parse(final)
		if err := fn(p); err != nil {
			return err
		}
	}
	return rows.Err()
}

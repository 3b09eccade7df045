package sqlite

import (
	"context"
	"fmt"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// EachLink calls fn for every stored link of the crawl, in the fetch order
// of the pages they were found on, as the crawler committed it, with the
// final URL of its page and the crawl's topics (the order of its scores).
// The rows are streamed, so memory does not grow with the crawl; fn must
// not keep the *crawler.PageLink, which the next call reuses.
func (s *Store) EachLink(ctx context.Context, crawl int64, fn func(*crawler.PageLink) error) error {
	topics, err := crawlTopics(ctx, s.db, crawl)
	if err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+finalURLColumn+`, links FROM pages p WHERE crawl_id = ? AND links IS NOT NULL ORDER BY ord`, crawl)
	if err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	l := crawler.PageLink{Topics: topics}
	for rows.Next() {
		var parent string
		var blob []byte
		if err := rows.Scan(&parent, &blob); err != nil {
			return fmt.Errorf("read links: %w", err)
		}
		if l.Parent, err = urlnorm.Parse(parent); err != nil {
			return fmt.Errorf("read links: page: %w", err)
		}
		links, err := decodeLinks(blob)
		if err != nil {
			return fmt.Errorf("read links of %s: %w", parent, err)
		}
		for _, sl := range links {
			if l.Link, err = sl.link(len(topics)); err != nil {
				return fmt.Errorf("read links of %s: %w", parent, err)
			}
			if err := fn(&l); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/scent-crawler/scent/crawler"
)

// SearchResult is one page found by Search; its Score is ts_rank_cd.
type SearchResult = crawler.SearchResult

// ErrEmptyQuery is returned by Search for a query without words.
var ErrEmptyQuery = errors.New("empty search query")

// Search finds the stored pages matching query (web search syntax: words
// are ANDed, "quoted phrases", or, a leading - excludes) among the title
// and text of every successful page that is not a near-duplicate, best
// first; limit defaults to 10. The query is run again, whole, while the
// server is lost (see outage).
func (s *Store) Search(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}
	if limit <= 0 {
		limit = 10
	}
	var out []SearchResult
	err := s.retry(ctx, func() error {
		out = nil
		rows, err := s.pool.Query(ctx, `SELECT p.id, c.name, p.url, p.title,
				ts_headline('english', p.text, q, 'StartSel=[, StopSel=], MaxWords=20, MinWords=8'),
				ts_rank_cd(p.search, q)
			FROM pages p JOIN crawls c ON c.id = p.crawl_id, websearch_to_tsquery('english', $1) q
			WHERE p.search @@ q ORDER BY 6 DESC, p.id LIMIT $2`, query, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r SearchResult
			if err := rows.Scan(&r.PageID, &r.Crawl, &r.URL, &r.Title, &r.Snippet, &r.Score); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return out, nil
}

package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
)

// LinkRow is a stored hyperlink of a fetched page, as the link-classifier
// evaluation reads it.
type LinkRow struct {
	// Page is the URL of the page the link was found on.
	Page    string
	Target  string
	Anchor  string
	Context string
	// Scores holds the link classifier's score per topic, or nil when
	// the link was not scored (a bfs or page-level crawl).
	Scores map[string]float64
}

// EachLink calls fn for every stored link of the crawl, in the fetch order
// of the pages they were found on. The rows are streamed, so memory does
// not grow with the crawl.
func (s *Store) EachLink(ctx context.Context, crawl int64, fn func(*LinkRow) error) error {
	var raw string
	if err := s.db.QueryRowContext(ctx, `SELECT topics FROM crawls WHERE id = ?`, crawl).Scan(&raw); err != nil {
		return fmt.Errorf("read links of crawl %d: topics: %w", crawl, err)
	}
	var topics []string
	if err := json.Unmarshal([]byte(raw), &topics); err != nil {
		return fmt.Errorf("read links of crawl %d: topics: %w", crawl, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT url, links FROM pages WHERE crawl_id = ? AND links IS NOT NULL ORDER BY ord`, crawl)
	if err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var page string
		var blob []byte
		if err := rows.Scan(&page, &blob); err != nil {
			return fmt.Errorf("read links: %w", err)
		}
		links, err := decodeLinks(blob)
		if err != nil {
			return fmt.Errorf("read links of %s: %w", page, err)
		}
		for _, l := range links {
			r := LinkRow{Page: page, Target: l.Target, Anchor: l.Anchor, Context: l.Context}
			if len(l.Scores) > 0 {
				if len(l.Scores) != len(topics) {
					return fmt.Errorf("read link %s -> %s: %d scores for %d topics", page, l.Target, len(l.Scores), len(topics))
				}
				r.Scores = make(map[string]float64, len(topics))
				for i, t := range topics {
					r.Scores[t] = l.Scores[i]
				}
			}
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	return nil
}

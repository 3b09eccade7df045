package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
	rows, err := s.db.QueryContext(ctx, `SELECT p.url, l.target, l.anchor, l.context, l.scores
		FROM pages p JOIN links l ON l.page_id = p.id WHERE p.crawl_id = ? ORDER BY p.ord, l.id`, crawl)
	if err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r LinkRow
		var scores string
		if err := rows.Scan(&r.Page, &r.Target, &r.Anchor, &r.Context, &scores); err != nil {
			return fmt.Errorf("read links: %w", err)
		}
		if r.Scores, err = parseScores(scores, topics); err != nil {
			return fmt.Errorf("read link %s -> %s: %w", r.Page, r.Target, err)
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	return nil
}

// parseScores reads a stored score list ("[0.5,0.25]", in the crawl's
// topic order) into a map by topic; an empty list gives nil. It is not
// decoded as JSON because non-finite scores are stored as NaN or ±Inf.
func parseScores(s string, topics []string) (map[string]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "[]" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("scores %q: want a [..] list", s)
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != len(topics) {
		return nil, fmt.Errorf("scores %q: %d values for %d topics", s, len(parts), len(topics))
	}
	m := make(map[string]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("scores %q: %w", s, err)
		}
		m[topics[i]] = v
	}
	return m, nil
}

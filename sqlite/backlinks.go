package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

var _ training.BacklinkSource = (*Store)(nil)

// Backlinks returns the stored links of every crawl of the database that
// point to one of targets, with their context tokens, at most limit of
// them (0: no limit). It is the store's answer to "which pages link to
// this training page?".
func (s *Store) Backlinks(ctx context.Context, targets []urlnorm.URL, limit int) ([]training.Backlink, error) {
	var out []training.Backlink
	for _, t := range targets {
		rows, err := s.db.QueryContext(ctx, `SELECT p.final_url, l.context FROM links l JOIN pages p ON p.id = l.page_id
			WHERE l.target = ?`, t.String())
		if err != nil {
			return nil, fmt.Errorf("backlinks of %s: %w", t, err)
		}
		for rows.Next() {
			var parent, context string
			if err := rows.Scan(&parent, &context); err != nil {
				rows.Close()
				return nil, fmt.Errorf("backlinks of %s: %w", t, err)
			}
			pu, err := urlnorm.Parse(parent)
			if err != nil || context == "" {
				continue
			}
			out = append(out, training.Backlink{Parent: pu, Target: t, Context: strings.Fields(context)})
			if limit > 0 && len(out) >= limit {
				rows.Close()
				return out, nil
			}
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

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
// them (0: no limit), in the order of targets. It is the store's answer to
// "which pages link to this training page?". Links are stored a page at a
// time, so this reads every stored page's links once; targets are matched
// as the text they are stored as (the targets' String), and only the
// pages of the links found are parsed. A stored page URL that does not
// parse is an error, as in EachLink.
func (s *Store) Backlinks(ctx context.Context, targets []urlnorm.URL, limit int) ([]training.Backlink, error) {
	want := make(map[string]int, len(targets))
	for i, t := range targets {
		if _, dup := want[t.String()]; !dup {
			want[t.String()] = i
		}
	}
	found := make([][]training.Backlink, len(targets))
	rows, err := s.db.QueryContext(ctx, `SELECT `+finalURLColumn+`, links FROM pages p WHERE links IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("backlinks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var parent string
		var blob []byte
		if err := rows.Scan(&parent, &blob); err != nil {
			return nil, fmt.Errorf("backlinks: %w", err)
		}
		links, err := decodeLinks(blob)
		if err != nil {
			return nil, fmt.Errorf("backlinks: links of %s: %w", parent, err)
		}
		var pu urlnorm.URL
		for _, l := range links {
			i, ok := want[l.Target]
			if !ok || l.Context == "" || limit > 0 && len(found[i]) >= limit {
				continue
			}
			if pu.IsZero() {
				if pu, err = urlnorm.Parse(parent); err != nil {
					return nil, fmt.Errorf("backlinks: page: %w", err)
				}
			}
			found[i] = append(found[i], training.Backlink{Parent: pu, Target: targets[i], Context: strings.Fields(l.Context)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("backlinks: %w", err)
	}
	var out []training.Backlink
	for _, bs := range found {
		for _, b := range bs {
			if limit > 0 && len(out) >= limit {
				return out, nil
			}
			out = append(out, b)
		}
	}
	return out, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CrawlInfo describes a stored crawl.
type CrawlInfo struct {
	ID         int64
	Name       string
	Strategy   string
	Stacks     []string
	Topics     []string
	Config     string
	CreatedAt  time.Time
	FinishedAt time.Time // zero while unfinished
	Finish     string
}

// ErrNoCrawl means the store holds no crawl of that name.
var ErrNoCrawl = errors.New("no such crawl")

// Crawl returns the crawl named name, or the most recent crawl when name
// is empty.
func (s *Store) Crawl(ctx context.Context, name string) (CrawlInfo, error) {
	q := `SELECT id, name, strategy, stacks, topics, config, created_at, COALESCE(finished_at, ''), COALESCE(finish, '') FROM crawls `
	var row *sql.Row
	if name == "" {
		row = s.db.QueryRowContext(ctx, q+`ORDER BY id DESC LIMIT 1`)
	} else {
		row = s.db.QueryRowContext(ctx, q+`WHERE name = ?`, name)
	}
	var c CrawlInfo
	var stacks, topics, created, finished string
	err := row.Scan(&c.ID, &c.Name, &c.Strategy, &stacks, &topics, &c.Config, &created, &finished, &c.Finish)
	if errors.Is(err, sql.ErrNoRows) {
		if name == "" {
			return c, fmt.Errorf("the store has no crawl yet: %w", ErrNoCrawl)
		}
		return c, fmt.Errorf("crawl %q: %w", name, ErrNoCrawl)
	}
	if err != nil {
		return c, fmt.Errorf("read crawl: %w", err)
	}
	if err := json.Unmarshal([]byte(stacks), &c.Stacks); err != nil {
		return c, fmt.Errorf("crawl %s stacks: %w", c.Name, err)
	}
	if err := json.Unmarshal([]byte(topics), &c.Topics); err != nil {
		return c, fmt.Errorf("crawl %s topics: %w", c.Name, err)
	}
	c.CreatedAt, _ = time.Parse(timeFormat, created)
	if finished != "" {
		c.FinishedAt, _ = time.Parse(timeFormat, finished)
	}
	return c, nil
}

// PageRow is a stored page as export and report read it.
type PageRow struct {
	Order       int
	URL         string
	FinalURL    string
	Topic       string // stack it was popped from
	Depth       int
	Status      int
	FetchedAt   time.Time
	DurationMS  float64
	Size        int
	ContentType string
	Title       string
	Failure     string
	// DuplicateOf is the URL of the page this one is a near-duplicate of
	// (the earliest stored page of its group, maybe of another crawl), or
	// empty when it is not a duplicate.
	DuplicateOf string
	Scores      map[string]float64
	Relevant    map[string]bool
}

// EachPage calls fn for every page of the crawl in fetch order. The rows
// are streamed, so memory does not grow with the crawl.
func (s *Store) EachPage(ctx context.Context, crawl int64, fn func(*PageRow) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT p.ord, p.url, p.final_url, p.topic, p.depth, p.status, p.fetched_at,
		p.duration_ms, p.size, p.content_type, p.title, p.failure,
		COALESCE((SELECT group_concat(topic || ' ' || score || ' ' || relevant, '|') FROM page_scores WHERE page_id = p.id), ''),
		COALESCE((SELECT o.url FROM pages o WHERE o.id = p.duplicate_of), '')
		FROM pages p WHERE p.crawl_id = ? ORDER BY p.ord`, crawl)
	if err != nil {
		return fmt.Errorf("read pages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r PageRow
		var fetched, scores string
		if err := rows.Scan(&r.Order, &r.URL, &r.FinalURL, &r.Topic, &r.Depth, &r.Status, &fetched, &r.DurationMS,
			&r.Size, &r.ContentType, &r.Title, &r.Failure, &scores, &r.DuplicateOf); err != nil {
			return fmt.Errorf("read pages: %w", err)
		}
		r.FetchedAt, _ = time.Parse(timeFormat, fetched)
		if scores != "" {
			r.Scores = make(map[string]float64)
			r.Relevant = make(map[string]bool)
			for _, part := range strings.Split(scores, "|") {
				f := strings.Fields(part)
				if len(f) != 3 {
					continue
				}
				v, _ := strconv.ParseFloat(f[1], 64)
				r.Scores[f[0]] = v
				r.Relevant[f[0]] = f[2] == "1"
			}
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Elapsed returns the time between the first and last fetch of a crawl.
func (s *Store) Elapsed(ctx context.Context, crawl int64) (time.Duration, int, error) {
	var first, last sql.NullString
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT MIN(fetched_at), MAX(fetched_at), COUNT(*) FROM pages WHERE crawl_id = ?`, crawl).Scan(&first, &last, &n)
	if err != nil || !first.Valid {
		return 0, n, err
	}
	a, _ := time.Parse(timeFormat, first.String)
	b, _ := time.Parse(timeFormat, last.String)
	return b.Sub(a), n, nil
}

// DuplicatesSince counts the near-duplicates among the pages of crawl
// whose fetch order is above after, and returns the highest order (after
// when there is no such page).
func (s *Store) DuplicatesSince(ctx context.Context, crawl int64, after int) (int, int, error) {
	var dups int
	var last sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(duplicate_of), MAX(ord) FROM pages WHERE crawl_id = ? AND ord > ?`, crawl, after).Scan(&dups, &last)
	if err != nil {
		return 0, after, fmt.Errorf("count duplicates: %w", err)
	}
	if !last.Valid {
		return 0, after, nil
	}
	return dups, int(last.Int64), nil
}

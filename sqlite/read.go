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

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// CrawlInfo describes a stored crawl, as every store does.
type CrawlInfo = crawler.CrawlInfo

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

// pageURLColumn reads the URL of page p, kept once, in urls.
const pageURLColumn = `(SELECT url FROM urls WHERE id = p.url_id)`

// finalURLColumn reads the final URL of page p: pages.final_url is
// empty when it is the page's URL.
const finalURLColumn = `iif(p.final_url = '', ` + pageURLColumn + `, p.final_url)`

// pageColumns are the columns scanPage reads, from pages p: the record
// without its text, links and raw exchanges, its page scores joined into
// one string and the URL of the page it is a near-duplicate of.
const pageColumns = `p.id, p.ord, ` + pageURLColumn + `, ` + finalURLColumn + `, p.topic, p.depth, p.status, p.fetched_at,
	p.duration_ms, p.size, p.content_type, p.etag, p.modified, p.content_hash, p.title, p.failure,
	COALESCE((SELECT group_concat(topic || ' ' || score || ' ' || relevant, '|') FROM page_scores WHERE page_id = p.id), ''),
	COALESCE((SELECT u.url FROM pages o JOIN urls u ON u.id = o.url_id WHERE o.id = p.duplicate_of), '')`

// EachPage calls fn for every page of the crawl in fetch order, failed
// fetches included, as the crawler committed it, with its order and the
// page it is a near-duplicate of; text, signature, links, raw exchanges
// and sitemaps are left out (EachFetch reads links and raw exchanges).
// The rows are streamed, so memory does not grow with the crawl.
func (s *Store) EachPage(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error {
	return s.eachPage(ctx, crawl, false, fn)
}

// EachPageText is EachPage with each page's extracted text (Page.Text),
// the words the search index and the near-duplicate check read; empty
// for a failed fetch.
func (s *Store) EachPageText(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error {
	return s.eachPage(ctx, crawl, true, fn)
}

func (s *Store) eachPage(ctx context.Context, crawl int64, withText bool, fn func(*crawler.Page) error) error {
	cols := pageColumns
	if withText {
		cols += `, scent_text(p.text)`
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM pages p WHERE p.crawl_id = ? ORDER BY p.ord`, crawl)
	if err != nil {
		return fmt.Errorf("read pages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var text sql.NullString
		var extra []any
		if withText {
			extra = append(extra, &text)
		}
		_, p, err := scanPage(rows, extra...)
		if err != nil {
			return err
		}
		p.Text = text.String
		if err := fn(p); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read pages: %w", err)
	}
	return nil
}

// scanPage reads one row of pageColumns, and into extra the columns
// after them: the page's id and its record.
func scanPage(rows *sql.Rows, extra ...any) (int64, *crawler.Page, error) {
	var id int64
	var u, final, fetched, scores, dupOf string
	var durMS float64
	p := &crawler.Page{}
	dest := append([]any{&id, &p.Order, &u, &final, &p.Topic, &p.Depth, &p.Status, &fetched, &durMS, &p.Size,
		&p.ContentType, &p.ETag, &p.Modified, &p.ContentHash, &p.Title, &p.Failure, &scores, &dupOf}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return 0, nil, fmt.Errorf("read pages: %w", err)
	}
	if err := p.ParseURLs(u, final, dupOf); err != nil {
		return 0, nil, err
	}
	p.FetchedAt, _ = time.Parse(timeFormat, fetched)
	p.Duration = time.Duration(durMS * float64(time.Millisecond))
	if scores != "" {
		p.Scores = make(map[string]float64)
		p.Relevant = make(map[string]bool)
		for _, part := range strings.Split(scores, "|") {
			f := strings.Fields(part)
			if len(f) != 3 {
				continue
			}
			v, _ := strconv.ParseFloat(f[1], 64)
			p.Scores[f[0]] = v
			p.Relevant[f[0]] = f[2] == "1"
		}
	}
	return id, p, nil
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
	rd, done, err := s.read(ctx) // the metrics call it while the crawl runs
	if err != nil {
		return 0, after, fmt.Errorf("count duplicates: %w", err)
	}
	defer done()
	var dups int
	var last sql.NullInt64
	err = rd.queryRow(ctx, `SELECT COUNT(duplicate_of), MAX(ord) FROM pages WHERE crawl_id = ? AND ord > ?`, crawl, after).Scan(&dups, &last)
	if err != nil {
		return 0, after, fmt.Errorf("count duplicates: %w", err)
	}
	if !last.Valid {
		return 0, after, nil
	}
	return dups, int(last.Int64), nil
}

// Learnt returns the pages the crawl's model and learner learnt from, as
// the crawl kept them (crawler.CrawlSpec.Learnt), in the order of their
// URLs; none when it kept none.
func (s *Store) Learnt(ctx context.Context, crawl int64) ([]urlnorm.URL, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT url FROM learnt WHERE crawl_id = ? ORDER BY url`, crawl)
	if err != nil {
		return nil, fmt.Errorf("read the pages learnt from: %w", err)
	}
	defer rows.Close()
	var out []urlnorm.URL
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read the pages learnt from: %w", err)
		}
		u, err := urlnorm.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("read the pages learnt from: %q: %w", v, err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the pages learnt from: %w", err)
	}
	return out, nil
}

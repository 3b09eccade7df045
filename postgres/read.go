package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// CrawlInfo describes a stored crawl, as every store does.
type CrawlInfo = crawler.CrawlInfo

// Crawl returns the crawl named name, or the latest crawl created when
// name is empty; ErrNoCrawl when there is none. Like every read of the
// store, it is run again while the server is lost (see outage).
func (s *Store) Crawl(ctx context.Context, name string) (CrawlInfo, error) {
	q := `SELECT id, name, strategy, stacks, topics, config, created_at, finished_at, COALESCE(finish, '') FROM crawls `
	var c CrawlInfo
	var stacks, topics string
	var finished *time.Time
	err := s.retry(ctx, func() error {
		var row pgx.Row
		if name == "" {
			row = s.pool.QueryRow(ctx, q+`ORDER BY id DESC LIMIT 1`)
		} else {
			row = s.pool.QueryRow(ctx, q+`WHERE name = $1`, name)
		}
		return row.Scan(&c.ID, &c.Name, &c.Strategy, &stacks, &topics, &c.Config, &c.CreatedAt, &finished, &c.Finish)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows) && name == "":
		return c, fmt.Errorf("the database has no crawl yet: %w", ErrNoCrawl)
	case errors.Is(err, pgx.ErrNoRows):
		return c, fmt.Errorf("crawl %q: %w", name, ErrNoCrawl)
	case err != nil:
		return c, fmt.Errorf("read crawl: %w", err)
	}
	if finished != nil {
		c.FinishedAt = *finished
	}
	if err := json.Unmarshal([]byte(stacks), &c.Stacks); err != nil {
		return c, fmt.Errorf("crawl %s stacks: %w", c.Name, err)
	}
	if err := json.Unmarshal([]byte(topics), &c.Topics); err != nil {
		return c, fmt.Errorf("crawl %s topics: %w", c.Name, err)
	}
	return c, nil
}

// Elapsed returns the time between the first and the last fetch of a
// crawl (over all its processes) and the number of its fetches.
func (s *Store) Elapsed(ctx context.Context, crawl int64) (time.Duration, int, error) {
	var first, last *time.Time
	var n int
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT min(fetched_at), max(fetched_at), count(*) FROM pages WHERE crawl_id = $1`, crawl).Scan(&first, &last, &n)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("elapsed time of crawl %d: %w", crawl, err)
	}
	if first == nil || last == nil {
		return 0, n, nil
	}
	return last.Sub(*first), n, nil
}

// EachPage calls fn for every fetch committed to the crawl, in fetch
// order, as the crawler committed it, with its order and the page it is
// a near-duplicate of; text, signature, links, raw exchanges and sitemaps
// are left out. The rows are streamed; a read cut by the loss of the
// server goes on after the last page given to fn (see stream), so fn is
// given every page once.
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
	var after int64 // the order of the last page given to fn
	text := `''`
	if withText {
		text = `p.text`
	}
	return s.stream(ctx, "read pages", func() error {
		rows, err := s.pool.Query(ctx, `SELECT p.ord, p.url, p.final_url, p.topic, p.depth, p.status, p.fetched_at,
			p.duration_ms, p.size, p.content_type, p.etag, p.modified, p.content_hash, p.title, p.failure,
			COALESCE((SELECT o.url FROM pages o WHERE o.id = p.duplicate_of), ''),
			ARRAY(SELECT topic FROM page_scores WHERE page_id = p.id ORDER BY topic),
			ARRAY(SELECT score FROM page_scores WHERE page_id = p.id ORDER BY topic),
			ARRAY(SELECT relevant FROM page_scores WHERE page_id = p.id ORDER BY topic),
			`+text+`
			FROM pages p WHERE p.crawl_id = $1 AND p.ord > $2 ORDER BY p.ord`, crawl, after)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u, final, dupOf string
			var ord, size int64
			var durMS float64
			var topics []string
			var scores []float64
			var relevant []bool
			p := &crawler.Page{}
			if err := rows.Scan(&ord, &u, &final, &p.Topic, &p.Depth, &p.Status, &p.FetchedAt, &durMS, &size,
				&p.ContentType, &p.ETag, &p.Modified, &p.ContentHash, &p.Title, &p.Failure, &dupOf, &topics, &scores, &relevant, &p.Text); err != nil {
				return err
			}
			p.Order, p.Size = int(ord), int(size)
			p.Duration = time.Duration(durMS * float64(time.Millisecond))
			if err := p.ParseURLs(u, final, dupOf); err != nil {
				return err
			}
			if len(topics) > 0 && len(scores) == len(topics) && len(relevant) == len(topics) {
				p.Scores = make(map[string]float64, len(topics))
				p.Relevant = make(map[string]bool, len(topics))
				for i, t := range topics {
					p.Scores[t], p.Relevant[t] = scores[i], relevant[i]
				}
			}
			if err := fn(p); err != nil {
				return callerStop{err}
			}
			after = ord
		}
		return rows.Err()
	})
}

// EachLink calls fn for every stored link of the crawl, in the fetch
// order of the pages they were found on, as the crawler committed it,
// with the final URL of its page and the crawl's topics (the order of its
// scores), as the SQLite store's EachLink does. The pages are streamed; fn
// must not keep the *crawler.PageLink, which the next call reuses. A read
// cut by the loss of the server goes on after the last page whose links
// were given to fn (see stream).
func (s *Store) EachLink(ctx context.Context, crawl int64, fn func(*crawler.PageLink) error) error {
	var topicsJSON string
	err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT topics FROM crawls WHERE id = $1`, crawl).Scan(&topicsJSON)
	})
	if err != nil {
		return fmt.Errorf("read links of crawl %d: topics: %w", crawl, err)
	}
	var topics []string
	if err := json.Unmarshal([]byte(topicsJSON), &topics); err != nil {
		return fmt.Errorf("read links of crawl %d: topics: %w", crawl, err)
	}
	l := crawler.PageLink{Topics: topics}
	var after int64 // the order of the last page whose links fn was given
	return s.stream(ctx, "read links", func() error {
		rows, err := s.pool.Query(ctx, `SELECT ord, final_url, links FROM pages
			WHERE crawl_id = $1 AND links IS NOT NULL AND ord > $2 ORDER BY ord`, crawl, after)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ord int64
			var parent string
			var raw []byte
			if err := rows.Scan(&ord, &parent, &raw); err != nil {
				return err
			}
			if l.Parent, err = urlnorm.Parse(parent); err != nil {
				return fmt.Errorf("page: %w", err)
			}
			var links []storedLink
			if err := json.Unmarshal(raw, &links); err != nil {
				return fmt.Errorf("links of %s: %w", parent, err)
			}
			for _, sl := range links {
				if l.Link, err = sl.link(len(topics)); err != nil {
					return fmt.Errorf("links of %s: %w", parent, err)
				}
				if err := fn(&l); err != nil {
					return callerStop{err}
				}
			}
			after = ord
		}
		return rows.Err()
	})
}

// LearnerState returns the learner's state the crawl saved last, nil
// when it saved none (a crawl without a learner).
func (s *Store) LearnerState(ctx context.Context, crawl int64) ([]byte, error) {
	var state []byte
	err := s.retry(ctx, func() error {
		err := s.pool.QueryRow(ctx, `SELECT state FROM learners WHERE crawl_id = $1`, crawl).Scan(&state)
		if errors.Is(err, pgx.ErrNoRows) {
			state = nil
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("learner state: %w", err)
	}
	return state, nil
}

// Learnt returns the pages the crawl's model and learner learnt from, as
// its processes kept them (crawler.CrawlSpec.Learnt), in the order of
// their URLs; none when they kept none.
func (s *Store) Learnt(ctx context.Context, crawl int64) ([]urlnorm.URL, error) {
	var out []urlnorm.URL
	err := s.retry(ctx, func() error {
		out = nil
		rows, err := s.pool.Query(ctx, `SELECT url FROM learnt WHERE crawl_id = $1 ORDER BY url COLLATE "C"`, crawl)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return err
			}
			u, err := urlnorm.Parse(v)
			if err != nil {
				return fmt.Errorf("%q: %w", v, err)
			}
			out = append(out, u)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the pages learnt from: %w", err)
	}
	return out, nil
}

// callerStop carries the error of a reader's fn out of retry: the
// caller's, not the connection's, even when it looks like a lost
// connection (a write to a closed pipe fails with EPIPE), so the read
// ends with it at once.
type callerStop struct{ err error }

func (callerStop) Error() string { return "stopped by the reader" }

// stream runs read, which streams rows in an order of unique keys to a
// caller and keeps the key of the last row it gave, again while the
// connection is lost (see outage), each time from after that row: a read
// cut by a server restart goes on where it was, so the caller gets every
// row once, in order, and those committed during the outage too. (Pages
// are read in their order, pages.ord, which a commit takes under the
// crawl's row lock: a page committed later has a greater order, and one
// of an order read past was visible to the read already.) An error of
// the caller, returned by read as callerStop, is returned as it is;
// others are wrapped with what was read.
func (s *Store) stream(ctx context.Context, what string, read func() error) error {
	err := s.retry(ctx, read)
	var stop callerStop
	switch {
	case errors.As(err, &stop):
		return stop.err
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/urlnorm"
)

// inflate decompresses a stored exchange: DEFLATE against fetch.RawDict
// (exchanges stored before it, without a dictionary, read the same).
func inflate(b []byte) ([]byte, error) {
	out, err := fetch.InflateRaw(b)
	if err != nil {
		return nil, fmt.Errorf("inflate raw exchange: %w", err)
	}
	return out, nil
}

const insertRawSQL = `INSERT INTO raw_exchanges(page_id, hop, url, sent_at, truncated, request, response, response_size)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

// insertRaw stores the exchanges of a page, compressed, whose URL is u
// and final URL final. An exchange's target is stored empty when it is
// u (the first hop) or final (a later hop).
func insertRaw(ctx context.Context, tx cachedTx, pageID int64, u, final urlnorm.URL, exs []*fetch.Exchange) error {
	for hop, e := range exs {
		target := e.URL
		if target == rawTarget(hop, u, final) {
			target = ""
		}
		trunc := 0
		if e.Truncated {
			trunc = 1
		}
		req, resp := e.Deflated()
		if _, err := tx.exec(ctx, insertRawSQL, pageID, hop, target, e.Date.UTC().Format(timeFormat), trunc,
			req, resp, e.ResponseSize()); err != nil {
			return fmt.Errorf("store raw exchange: %w", err)
		}
	}
	return nil
}

// rawTarget is the target an exchange stored with an empty URL had: the
// page's URL u for the first hop, its final URL for a later one.
func rawTarget(hop int, u, final urlnorm.URL) string {
	if hop == 0 || final.IsZero() {
		return u.String()
	}
	return final.String()
}

// RawStats sums the raw exchanges stored for a crawl.
type RawStats struct {
	Pages      int   // pages with at least one exchange
	Exchanges  int   // stored exchanges (hops)
	Bytes      int64 // responses before compression
	Compressed int64 // requests and responses as stored
}

// RawStats counts the raw exchanges stored for crawl.
func (s *Store) RawStats(ctx context.Context, crawl int64) (RawStats, error) {
	var st RawStats
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT r.page_id), COUNT(*), COALESCE(SUM(r.response_size), 0),
		COALESCE(SUM(length(r.request) + length(r.response)), 0)
		FROM raw_exchanges r JOIN pages p ON p.id = r.page_id WHERE p.crawl_id = ?`, crawl).
		Scan(&st.Pages, &st.Exchanges, &st.Bytes, &st.Compressed)
	if err != nil {
		return st, fmt.Errorf("raw stats: %w", err)
	}
	return st, nil
}

// EachFetch calls fn for every page of the crawl in fetch order, as
// EachPage reads it (text and signature left out) completed with what
// an archive of the crawl needs besides: its links as committed (scores
// in the crawl's topic order, CrawlSpec.Topics) and its raw exchanges
// (decompressed). Pages are passed one at a time.
func (s *Store) EachFetch(ctx context.Context, crawl int64, fn func(*crawler.Page) error) error {
	topics, err := crawlTopics(ctx, s.db, crawl)
	if err != nil {
		return fmt.Errorf("read pages: %w", err)
	}
	type row struct {
		id int64
		p  *crawler.Page
	}
	// The pages (small without their text) are read a chunk at a time,
	// then completed one by one: the store has one connection, which the
	// open page query holds. Memory holds one chunk, whatever the crawl's
	// size, and a page's links and exchanges only while fn has it.
	pending := make([]row, 0, fetchChunk)
	for last := -1; ; {
		rows, err := s.db.QueryContext(ctx, `SELECT `+pageColumns+` FROM pages p WHERE p.crawl_id = ? AND p.ord > ? ORDER BY p.ord LIMIT ?`, crawl, last, fetchChunk)
		if err != nil {
			return fmt.Errorf("read pages: %w", err)
		}
		pending = pending[:0]
		for rows.Next() {
			id, p, err := scanPage(rows)
			if err != nil {
				rows.Close()
				return err
			}
			pending = append(pending, row{id, p})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("read pages: %w", err)
		}
		for i, r := range pending {
			if err := s.completeFetch(ctx, r.id, r.p, topics); err != nil {
				return err
			}
			if err := fn(r.p); err != nil {
				return err
			}
			last = r.p.Order
			pending[i] = row{}
		}
		if len(pending) < fetchChunk {
			return nil
		}
	}
}

// fetchChunk is how many pages EachFetch reads at once.
const fetchChunk = 256

// completeFetch reads a page's links, whose scores are in the order of
// topics, and its raw exchanges.
func (s *Store) completeFetch(ctx context.Context, id int64, p *crawler.Page, topics []string) error {
	links, err := s.pageLinks(ctx, id)
	if err != nil {
		return fmt.Errorf("read links of %s: %w", p.FinalURL, err)
	}
	for _, sl := range links {
		l, err := sl.link(len(topics))
		if err != nil {
			return fmt.Errorf("read links of %s: %w", p.FinalURL, err)
		}
		p.Links = append(p.Links, l)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT hop, url, sent_at, truncated, request, response FROM raw_exchanges
		WHERE page_id = ? ORDER BY hop`, id)
	if err != nil {
		return fmt.Errorf("read raw exchanges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e fetch.Exchange
		var hop int
		var sent string
		var req, resp []byte
		if err := rows.Scan(&hop, &e.URL, &sent, &e.Truncated, &req, &resp); err != nil {
			return fmt.Errorf("read raw exchanges: %w", err)
		}
		if e.URL == "" {
			e.URL = rawTarget(hop, p.URL, p.FinalURL)
		}
		e.Date, _ = time.Parse(timeFormat, sent)
		if e.Request, err = inflate(req); err != nil {
			return err
		}
		if e.Response, err = inflate(resp); err != nil {
			return err
		}
		p.Exchanges = append(p.Exchanges, &e)
	}
	return rows.Err()
}

// UnchangedCheck is a revisit of a page that found it unchanged.
type UnchangedCheck struct {
	URL       string // as checked
	FinalURL  string // of the page as the crawl fetched it
	CheckedAt time.Time
	Status    int // 304 when the server said Not Modified
}

// EachUnchangedCheck calls fn for every revisit of the crawl's pages that
// found the page unchanged, in the order of the checks.
func (s *Store) EachUnchangedCheck(ctx context.Context, crawl int64, fn func(UnchangedCheck) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT c.url, `+finalURLColumn+`, c.checked_at, c.status FROM change_log c
		JOIN pages p ON p.id = c.page_id WHERE p.crawl_id = ? AND c.changed = 0 AND c.failure = '' ORDER BY c.id`, crawl)
	if err != nil {
		return fmt.Errorf("read checks: %w", err)
	}
	var checks []UnchangedCheck
	for rows.Next() {
		var c UnchangedCheck
		var at string
		if err := rows.Scan(&c.URL, &c.FinalURL, &at, &c.Status); err != nil {
			rows.Close()
			return fmt.Errorf("read checks: %w", err)
		}
		c.CheckedAt, _ = time.Parse(checkTime, at)
		checks = append(checks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read checks: %w", err)
	}
	for _, c := range checks {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

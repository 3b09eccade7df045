package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/sitenorm"
	"github.com/scent-crawler/scent/urlnorm"
)

var _ crawler.URLLookup = (*Store)(nil)

// KnownURL implements crawler.URLLookup: whether u is in the crawl's
// frontier or visited set (known), and whether it is leased to a fetch or
// fetched (taken). It is safe for concurrent use.
func (s *Store) KnownURL(ctx context.Context, crawl int64, u urlnorm.URL) (known, taken bool, err error) {
	if _, ok := s.pops.isLeased(crawl, u.String()); ok {
		return true, true, nil // leased by a pop not written yet
	}
	rd, done, err := s.read(ctx)
	if err != nil {
		return false, false, fmt.Errorf("known %s: %w", u, err)
	}
	defer done()
	var state int
	err = rd.queryRow(ctx, `SELECT state FROM urls WHERE crawl_id = ? AND url = ?`, crawl, u.String()).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("known %s: %w", u, err)
	}
	return true, state != 0, nil
}

// insertNorm keeps the normalized pairs measured with page pageID and the
// rules they changed.
func insertNorm(ctx context.Context, tx cachedTx, crawl, pageID int64, p *crawler.Page) error {
	for _, pr := range p.NormPairs {
		if _, err := tx.exec(ctx, `INSERT INTO norm_pairs(crawl_id, host, ext, url, normalized, outcome, present, direct, fetches, page_id, detail, measured_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			crawl, pr.Host, pr.Ext.String(), pr.URL.String(), pr.Normalized.String(), pr.Outcome.String(),
			pr.Present, pr.Direct, pr.Fetches, pageID, pr.Detail, pr.At.UTC().Format(timeFormat)); err != nil {
			return fmt.Errorf("store normalized pair %s: %w", pr.Normalized, err)
		}
	}
	for _, ru := range p.NormRules {
		c := ru.Counts
		if _, err := tx.exec(ctx, `INSERT OR REPLACE INTO norm_rules(crawl_id, host, ext, loss, gain, change, nonloss, sampled, direct, state, measured_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			crawl, ru.Host, ru.Ext.String(), c.Loss, c.Gain, c.Change, c.NonLoss, ru.Sampled, ru.Direct, ru.State.String(),
			ru.At.UTC().Format(timeFormat)); err != nil {
			return fmt.Errorf("store rule %s %s: %w", ru.Host, ru.Ext, err)
		}
	}
	return nil
}

// NormRules returns the site-based normalization rules of the crawl
// named name, by host and EN, as last stored.
func (s *Store) NormRules(ctx context.Context, name string) ([]sitenorm.Rule, error) {
	var out []sitenorm.Rule
	err := s.normRules(ctx, name, "r.host, r.ext", func(ru sitenorm.Rule) error {
		out = append(out, ru)
		return nil
	})
	return out, err
}

// EachNormRule calls fn with each site-based normalization rule of the
// crawl named name, the ones measured longest ago first, without holding
// them all: a resumed crawl restores them into rules that keep a bounded
// number of hosts (sitenorm.Policy.MaxHosts), the latest.
func (s *Store) EachNormRule(ctx context.Context, name string, fn func(sitenorm.Rule) error) error {
	return s.normRules(ctx, name, "r.measured_at, r.host, r.ext", fn)
}

func (s *Store) normRules(ctx context.Context, name, order string, fn func(sitenorm.Rule) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT r.host, r.ext, r.loss, r.gain, r.change, r.nonloss, r.sampled, r.direct, r.state, r.measured_at
		FROM norm_rules r JOIN crawls c ON c.id = r.crawl_id WHERE c.name = ? ORDER BY `+order, name)
	if err != nil {
		return fmt.Errorf("rules of crawl %s: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ru sitenorm.Rule
		var ext, state, at string
		if err := rows.Scan(&ru.Host, &ext, &ru.Counts.Loss, &ru.Counts.Gain, &ru.Counts.Change, &ru.Counts.NonLoss,
			&ru.Sampled, &ru.Direct, &state, &at); err != nil {
			return err
		}
		if ru.Ext, err = urlnorm.ParseExtension(ext); err != nil {
			return err
		}
		if ru.State, err = sitenorm.ParseState(state); err != nil {
			return err
		}
		ru.At, _ = time.Parse(timeFormat, at)
		if err := fn(ru); err != nil {
			return err
		}
	}
	return rows.Err()
}

// FetchStats counts what a crawl fetched and stored, to see whether one
// page was fetched or stored under several URLs.
type FetchStats struct {
	Fetches int `json:"fetches"` // records, failed included
	Pages   int `json:"pages"`   // successful fetches
	// Aliases are fetches answered by a redirect (recorded, no page).
	Aliases int `json:"aliases"`
	// FinalURLsTwice counts final URLs stored as more than one page.
	FinalURLsTwice int `json:"final_urls_stored_twice"`
	// IdenticalOriginals counts groups of byte-identical pages (same
	// SHA-256) of which more than one is stored as an original (not
	// marked duplicate_of).
	IdenticalOriginals int `json:"identical_original_groups"`
	// DistinctBodies counts the distinct SHA-256 of the pages.
	DistinctBodies int `json:"distinct_bodies"`
	// Measurements are the requests of site-based normalization.
	Measurements int `json:"normalization_requests"`
}

// FetchStats returns the counts of crawl.
func (s *Store) FetchStats(ctx context.Context, crawl int64) (FetchStats, error) {
	var st FetchStats
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM pages WHERE crawl_id = ?1),
		(SELECT COUNT(*) FROM pages WHERE crawl_id = ?1 AND failure = ''),
		(SELECT COUNT(*) FROM aliases WHERE crawl_id = ?1),
		(SELECT COUNT(*) FROM (SELECT 1 FROM pages p WHERE crawl_id = ?1 AND failure = '' GROUP BY `+finalURLColumn+` HAVING COUNT(*) > 1)),
		(SELECT COUNT(*) FROM (SELECT content_hash FROM pages WHERE crawl_id = ?1 AND failure = '' AND duplicate_of IS NULL GROUP BY content_hash HAVING COUNT(*) > 1)),
		(SELECT COUNT(DISTINCT content_hash) FROM pages WHERE crawl_id = ?1 AND failure = ''),
		(SELECT COALESCE(SUM(fetches), 0) FROM norm_pairs WHERE crawl_id = ?1)`, crawl).
		Scan(&st.Fetches, &st.Pages, &st.Aliases, &st.FinalURLsTwice, &st.IdenticalOriginals, &st.DistinctBodies, &st.Measurements)
	if err != nil {
		return st, fmt.Errorf("fetch stats of crawl %d: %w", crawl, err)
	}
	return st, nil
}

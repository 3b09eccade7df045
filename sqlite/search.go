package sqlite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/scent-crawler/scent/crawler"
)

// SearchResult is one page found by Search; its Score is BM25.
type SearchResult = crawler.SearchResult

// BM25 parameters of Search: the usual k1 and b, and the weights of the
// title and text columns.
const (
	bm25K1          = 1.2
	bm25B           = 0.75
	bm25TitleWeight = 2.0
	bm25TextWeight  = 1.0
)

// ErrEmptyQuery is returned by Search for a query without words.
var ErrEmptyQuery = errors.New("empty search query")

// Search finds the stored pages matching query in the full-text index, which
// holds the title and text of every successful page that is not a
// near-duplicate of a page stored before (duplicates are never indexed).
// The query uses SQLite FTS4 syntax: words are ANDed, "quoted phrases",
// OR, a leading - excludes (ftsQuery), word* matches a prefix.
//
// Results are ranked by Okapi BM25 (k1 = 1.2, b = 0.75) summed over the
// query's phrases and the two columns, with the title weighted twice the
// text; a phrase's inverse document frequency is ln(1 + (N − n + 0.5) /
// (n + 0.5)) for n of N pages containing it, which is never negative. All
// matches are scored and the best limit (default 10) are returned, best
// first.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]SearchResult, error) {
	if strings.TrimSpace(query) == "" {
		return nil, ErrEmptyQuery
	}
	if limit <= 0 {
		limit = 10
	}
	shown := shortQuery(query) // in errors
	match, err := ftsQuery(query)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", shown, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT docid, matchinfo(search, 'pcnalx') FROM search WHERE search MATCH ?`, match)
	if err != nil {
		if strings.Contains(err.Error(), "malformed MATCH") || strings.Contains(err.Error(), "FTS expression tree") {
			return nil, fmt.Errorf("search %q: not a query this index reads (%v): words, \"a phrase\", OR, -word, word*, and at most a dozen or so operators", shown, err)
		}
		return nil, fmt.Errorf("search %q: %w", shown, err)
	}
	type hit struct {
		id    int64
		score float64
	}
	var hits []hit
	for rows.Next() {
		var h hit
		var info []byte
		if err := rows.Scan(&h.id, &info); err != nil {
			rows.Close()
			return nil, fmt.Errorf("search %q: %w", shown, err)
		}
		if h.score, err = bm25(info, []float64{bm25TitleWeight, bm25TextWeight}); err != nil {
			rows.Close()
			return nil, fmt.Errorf("search %q: %w", shown, err)
		}
		hits = append(hits, h)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("search %q: %w", shown, err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search %q: %w", shown, err)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id < hits[j].id
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]SearchResult, 0, len(hits))
	for _, h := range hits {
		r := SearchResult{PageID: h.id, Score: h.score}
		err := s.db.QueryRowContext(ctx, `SELECT `+pageURLColumn+`, p.title, c.name,
				COALESCE((SELECT snippet(search, '[', ']', '…', -1, 24) FROM search WHERE search MATCH ? AND docid = p.id), '')
			FROM pages p JOIN crawls c ON c.id = p.crawl_id WHERE p.id = ?`, match, h.id).
			Scan(&r.URL, &r.Title, &r.Crawl, &r.Snippet)
		if err != nil {
			return nil, fmt.Errorf("search %q: read page %d: %w", shown, h.id, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// bm25 scores one row from its FTS4 matchinfo 'pcnalx' blob: p phrases, c
// columns, n rows, then per column the average tokens (a) and the row's
// tokens (l), then per phrase and column three counts (x): hits in this
// row, hits in all rows, rows with a hit.
func bm25(info []byte, weights []float64) (float64, error) {
	if len(info)%4 != 0 || len(info) < 12 {
		return 0, fmt.Errorf("matchinfo of %d bytes", len(info))
	}
	v := make([]uint32, len(info)/4)
	for i := range v {
		v[i] = binary.NativeEndian.Uint32(info[4*i:])
	}
	p, c, n := int(v[0]), int(v[1]), float64(v[2])
	if p > len(v) || c > len(v) || len(v) != 3+2*c+3*p*c {
		return 0, fmt.Errorf("matchinfo of %d values for %d phrases and %d columns", len(v), p, c)
	}
	avg, length, x := v[3:3+c], v[3+c:3+2*c], v[3+2*c:]
	score := 0.0
	for i := range p {
		for j := range c {
			tf := float64(x[3*(i*c+j)])
			if tf == 0 {
				continue
			}
			docs := min(float64(x[3*(i*c+j)+2]), n) // never more rows than the table has
			idf := math.Log(1 + (n-docs+0.5)/(docs+0.5))
			norm := 1.0
			if avg[j] > 0 {
				norm = 1 - bm25B + bm25B*float64(length[j])/float64(avg[j])
			}
			w := 1.0
			if j < len(weights) {
				w = weights[j]
			}
			score += w * idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
	}
	return score, nil
}

// ftsQuery turns a query in the syntax Search documents into the one
// SQLite's FTS4 reads. The driver builds FTS with its enhanced query
// syntax, where a leading - is no operator and NOT excludes: "-word"
// (or -"a phrase") becomes NOT after the rest, in parentheses, so that
// it leaves out every page holding the word, whatever ORs the rest has.
// A query of exclusions alone finds nothing to exclude from.
func ftsQuery(q string) (string, error) {
	var pos, neg []string
	for _, t := range queryTerms(q) {
		if len(t) > 1 && t[0] == '-' {
			neg = append(neg, t[1:])
		} else {
			pos = append(pos, t)
		}
	}
	if len(neg) == 0 {
		return strings.Join(pos, " "), nil
	}
	if len(pos) == 0 {
		return "", errors.New("a query needs a word to find: -word only leaves out the pages that hold it")
	}
	out := "(" + strings.Join(pos, " ") + ")"
	for _, n := range neg {
		out += " NOT " + n
	}
	return out, nil
}

// shortQuery is q as errors quote it: at most 80 bytes, cut between
// characters.
func shortQuery(q string) string {
	if len(q) <= 80 {
		return q
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return q[:cut] + "…"
}

// queryTerms splits q at spaces outside "quoted phrases".
func queryTerms(q string) []string {
	var terms []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			if cur.Len() > 0 {
				terms = append(terms, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		terms = append(terms, cur.String())
	}
	return terms
}

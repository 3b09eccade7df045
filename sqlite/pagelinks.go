package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/deflate"
)

// A page's links are stored in its row of pages (column links): the links
// in page order, encoded by encodeLinks and compressed with DEFLATE. Neighbouring
// link contexts share most of their words, so the whole list compresses
// far better than a row a link would (a link farm's page of 200 links
// takes about 6 KB instead of 45 KB with one row and two index entries a
// link).
//
// Encoding, before compression: a format byte (1), the number of links,
// then per link its target, anchor and context, each as a length and its
// bytes, and its scores as a count and as many IEEE-754 float64 values
// (little-endian). Counts and lengths are unsigned varints.
const linksFormat = 1

// maxLinksBlob bounds a page's decoded link list, so that a damaged row
// cannot make a reader allocate without limit.
const maxLinksBlob = 64 << 20

var errLinksBlob = errors.New("damaged link list")

// encodeLinks encodes links and compresses them; nil when there are none.
func encodeLinks(links []storedLink) []byte {
	if len(links) == 0 {
		return nil
	}
	var b []byte
	b = append(b, linksFormat)
	b = binary.AppendUvarint(b, uint64(len(links)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, l := range links {
		str(l.Target)
		str(l.Anchor)
		str(l.Context)
		b = binary.AppendUvarint(b, uint64(len(l.Scores)))
		for _, v := range l.Scores {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return linkWriters.Append(make([]byte, 0, len(b)/4+64), b)
}

// linkWriters compress link lists at DEFLATE level 6: on a page of 200
// links (BenchmarkEncodeLinks) 4 % larger than level 7 for three
// quarters of its time, 11 % smaller than level 4 for the same time;
// what remains is mostly the targets' own bytes.
var linkWriters = deflate.NewWriters(6, nil, 4)

// storedLink is a link as the encoding of a page's links keeps it, its
// target as text; a read turns it into a crawler.Link (link).
type storedLink struct {
	Target, Anchor, Context string
	Scores                  []float64
}

// link turns a stored link back into the link the crawler committed, for
// a crawl of n topics (crawler.Link.ParseTarget).
func (sl storedLink) link(n int) (crawler.Link, error) {
	l := crawler.Link{Anchor: sl.Anchor, Context: sl.Context, Scores: sl.Scores}
	err := l.ParseTarget(sl.Target, n)
	return l, err
}

// storedLinks converts a fetched page's links for encodeLinks.
func storedLinks(links []crawler.Link) []storedLink {
	out := make([]storedLink, len(links))
	for i, l := range links {
		out[i] = storedLink{Target: l.Target.String(), Anchor: l.Anchor, Context: l.Context, Scores: l.Scores}
	}
	return out
}

// decodeLinks reverses encodeLinks.
func decodeLinks(blob []byte) ([]storedLink, error) {
	b, err := deflate.Inflate(blob, nil, maxLinksBlob)
	if errors.Is(err, deflate.ErrTooLong) {
		return nil, fmt.Errorf("%w: over %d bytes", errLinksBlob, maxLinksBlob)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errLinksBlob, err)
	}
	return parseLinks(b)
}

// parseLinks reads an uncompressed link list.
func parseLinks(b []byte) ([]storedLink, error) {
	if len(b) == 0 || b[0] != linksFormat {
		return nil, fmt.Errorf("%w: unknown format", errLinksBlob)
	}
	b = b[1:]
	uv := func() (uint64, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	n, ok := uv()
	// Every link takes at least four bytes.
	if !ok || n > uint64(len(b))/4 {
		return nil, fmt.Errorf("%w: bad link count", errLinksBlob)
	}
	out := make([]storedLink, 0, n)
	for i := uint64(0); i < n; i++ {
		var l storedLink
		var ok1, ok2, ok3 bool
		l.Target, ok1 = str()
		l.Anchor, ok2 = str()
		l.Context, ok3 = str()
		k, ok4 := uv()
		if !ok1 || !ok2 || !ok3 || !ok4 || k > uint64(len(b))/8 {
			return nil, fmt.Errorf("%w: link %d", errLinksBlob, i)
		}
		if k > 0 {
			l.Scores = make([]float64, k)
			for j := range l.Scores {
				l.Scores[j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
				b = b[8:]
			}
		}
		out = append(out, l)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errLinksBlob, len(b))
	}
	return out, nil
}

// pageLinks reads the stored links of one page; none when it has no row.
func (s *Store) pageLinks(ctx context.Context, pageID int64) ([]storedLink, error) {
	var blob []byte
	err := s.db.QueryRowContext(ctx, `SELECT links FROM pages WHERE id = ?`, pageID).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil || blob == nil {
		return nil, err
	}
	return decodeLinks(blob)
}

// convertLinks moves the links of a database written before pages.links
// (one row a link in table links) into pages.links, a page at a time, and
// drops the old table; it does nothing when there is no such table.
func convertLinks(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'links'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT page_id, target, anchor, context, scores FROM links ORDER BY page_id, id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	page := int64(-1)
	var links []storedLink
	flush := func() error {
		if len(links) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE pages SET links = ? WHERE id = ?`, encodeLinks(links), page)
		links = links[:0]
		return err
	}
	for rows.Next() {
		var id int64
		var l storedLink
		var scores string
		if err := rows.Scan(&id, &l.Target, &l.Anchor, &l.Context, &scores); err != nil {
			return err
		}
		if id != page {
			if err := flush(); err != nil {
				return err
			}
			page = id
		}
		for _, f := range strings.Split(strings.Trim(scores, "[] "), ",") {
			if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil {
				l.Scores = append(l.Scores, v)
			}
		}
		links = append(links, l)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	rows.Close()
	_, err = tx.ExecContext(ctx, `DROP TABLE links`)
	return err
}

package archive

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/warc"
)

// maxDigests bounds the payload digests a Writer remembers for revisit
// records, and the URLs it remembers for WriteRevisit; past it, it
// forgets them all and starts again (memory): a payload archived before
// is archived in full again, and WriteRevisit of a URL archived before
// writes nothing. Exporting a crawl writes every page before the
// revisits that refer to them. A page remembered takes about 100 bytes
// besides its URL (BenchmarkWriter_rememberMemory), so a Writer holds
// about 100 MB and the URLs of a million pages; up to twice that when
// URLs were archived again with new payloads.
const maxDigests = 1 << 20

// Writer turns pages into WARC records written to a warc.Dir. It is not
// safe for concurrent use.
type Writer struct {
	dir    *warc.Dir
	topics []string
	mem    *memory
	// Records counts the records written, by WARC-Type.
	Records map[string]int
}

// origin is the first response archived with a payload: its
// WARC-Record-ID, WARC-Target-URI, WARC-Date and WARC-Payload-Digest.
type origin struct {
	id, uri, date, digest string
}

// NewWriter returns a Writer into dir; topics name the page's and links'
// scores (crawler.CrawlSpec.Topics).
func NewWriter(dir *warc.Dir, topics []string) *Writer {
	return &Writer{dir: dir, topics: topics, mem: newMemory(maxDigests), Records: make(map[string]int)}
}

// SetTopics sets the names of the scores.
func (w *Writer) SetTopics(topics []string) { w.topics = topics }

// WritePage writes the records of one fetch together.
func (w *Writer) WritePage(ctx context.Context, p *crawler.Page) error {
	var recs []*warc.Record
	var last *warc.Record
	for _, e := range p.Exchanges {
		req := warc.NewRecord(warc.TypeRequest, e.Date, e.URL, e.Request)
		req.Header.Add("Content-Type", "application/http; msgtype=request")
		resp, err := w.response(e)
		if err != nil {
			return fmt.Errorf("archive %s: %w", p.URL, err)
		}
		req.Header.Add("WARC-Concurrent-To", resp.ID())
		recs = append(recs, req, resp)
		last = resp
	}
	target, date := p.FinalURL.String(), p.FetchedAt
	if len(p.Exchanges) > 0 {
		e := p.Exchanges[len(p.Exchanges)-1]
		target, date = e.URL, e.Date
	}
	if target == "" {
		target = p.URL.String()
	}
	meta := warc.NewRecord(warc.TypeMetadata, date, target, w.metadata(p))
	meta.Header.Add("Content-Type", "application/warc-fields")
	if last != nil {
		meta.Header.Add("WARC-Concurrent-To", last.ID())
	}
	recs = append(recs, meta)
	if err := w.dir.Write(ctx, recs...); err != nil {
		return fmt.Errorf("archive %s: %w", p.URL, err)
	}
	for _, r := range recs {
		w.Records[r.Type()]++
	}
	return nil
}

// ProfileNotModified is the WARC-Profile of a revisit record made from
// a 304 Not Modified answer.
const ProfileNotModified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"

// WriteRevisit writes a revisit record for a later check of the page
// archived under original that found it unchanged: checked is the URL
// checked, at date; notModified says the server answered 304. It writes
// nothing and returns false when this Writer archived no complete 2xx
// response of original (raw responses were not kept).
func (w *Writer) WriteRevisit(ctx context.Context, checked, original string, date time.Time, notModified bool) (bool, error) {
	o, ok := w.mem.byURL(original)
	if !ok {
		return false, nil
	}
	r := warc.NewRecord(warc.TypeRevisit, date, checked, nil)
	if notModified {
		r.Header.Add("WARC-Profile", ProfileNotModified)
	} else {
		r.Header.Add("WARC-Profile", warc.ProfileIdenticalPayload)
		r.Header.Add("WARC-Payload-Digest", o.digest)
	}
	r.Header.Add("WARC-Refers-To", o.id)
	r.Header.Add("WARC-Refers-To-Target-URI", o.uri)
	r.Header.Add("WARC-Refers-To-Date", o.date)
	if err := w.dir.Write(ctx, r); err != nil {
		return false, fmt.Errorf("archive revisit of %s: %w", checked, err)
	}
	w.Records[warc.TypeRevisit]++
	return true, nil
}

// response makes the response record of e, or a revisit record when its
// payload was archived before.
func (w *Writer) response(e *fetch.Exchange) (*warc.Record, error) {
	raw, err := e.RawResponse()
	if err != nil {
		return nil, fmt.Errorf("raw response of %s: %w", e.URL, err)
	}
	head, body := splitHTTP(raw)
	digest := warc.Digest(body)
	complete := len(head) >= 12 && head[9] == '2' && len(body) > 0 && !e.Truncated // a complete 2xx payload
	if o, dup := w.mem.byDigest(digest); complete && dup {
		r := warc.NewRecord(warc.TypeRevisit, e.Date, e.URL, head)
		r.Header.Add("Content-Type", "application/http; msgtype=response")
		r.Header.Add("WARC-Profile", warc.ProfileIdenticalPayload)
		r.Header.Add("WARC-Refers-To", o.id)
		r.Header.Add("WARC-Refers-To-Target-URI", o.uri)
		r.Header.Add("WARC-Refers-To-Date", o.date)
		r.Header.Add("WARC-Payload-Digest", digest)
		return r, nil
	}
	r := warc.NewRecord(warc.TypeResponse, e.Date, e.URL, raw)
	r.Header.Add("Content-Type", "application/http; msgtype=response")
	r.Header.Add("WARC-Payload-Digest", digest)
	if e.Truncated {
		r.Header.Add("WARC-Truncated", "length")
	}
	if complete {
		w.mem.remember(origin{id: r.ID(), uri: e.URL, date: r.Header.Get("WARC-Date"), digest: digest})
	}
	return r, nil
}

// splitHTTP cuts an HTTP message after its header's blank line.
func splitHTTP(m []byte) (head, body []byte) {
	if i := bytes.Index(m, []byte("\r\n\r\n")); i >= 0 {
		return m[:i+4], m[i+4:]
	}
	return m, nil
}

// metadata is scent's view of a page as application/warc-fields.
func (w *Writer) metadata(p *crawler.Page) []byte {
	var h warc.Header
	if p.URL != p.FinalURL && !p.FinalURL.IsZero() {
		h.Add("scent-requested-url", p.URL.String())
	}
	h.Add("scent-stack", p.Topic)
	h.Add("scent-depth", strconv.Itoa(p.Depth))
	h.Add("scent-status", strconv.Itoa(p.Status))
	if p.Failure != "" {
		h.Add("scent-failure", p.Failure)
	}
	if p.ContentHash != "" {
		h.Add("scent-content-sha256", p.ContentHash)
	}
	for _, t := range w.pageTopics(p) {
		verdict := "off-topic"
		if p.Relevant[t] {
			verdict = "on-topic"
		}
		h.Add("scent-page-score", t+" "+strconv.FormatFloat(p.Scores[t], 'g', 4, 64)+" "+verdict)
	}
	var b strings.Builder
	for _, l := range p.Links {
		b.Reset()
		b.WriteString(l.Target.String())
		for i, s := range l.Scores {
			b.WriteString(" " + w.topic(i) + "=" + strconv.FormatFloat(s, 'g', 4, 64))
		}
		h.Add("outlink", b.String())
	}
	return warc.FieldsBlock(h)
}

// pageTopics returns the topics p has scores for: the writer's topics in
// their order, then any other in sorted order.
func (w *Writer) pageTopics(p *crawler.Page) []string {
	out := make([]string, 0, len(p.Scores))
	for _, t := range w.topics {
		if _, ok := p.Scores[t]; ok {
			out = append(out, t)
		}
	}
	if len(out) == len(p.Scores) {
		return out
	}
	var rest []string
	for t := range p.Scores {
		if !slices.Contains(w.topics, t) {
			rest = append(rest, t)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func (w *Writer) topic(i int) string {
	if i < len(w.topics) {
		return w.topics[i]
	}
	return "topic" + strconv.Itoa(i)
}

// Store is a crawler.Store that archives every page in WARC files before
// committing it to the store it wraps.
type Store struct {
	crawler.Store
	W *Writer
	// DropRaw removes the exchanges from the pages once archived, so the
	// wrapped store does not keep them.
	DropRaw bool
}

// Unwrap returns the store s wraps: the crawler finds the optional
// interfaces of a store (crawler.Grouper, crawler.Peeker, …) on it
// (crawler.StoreAs).
func (s *Store) Unwrap() crawler.Store { return s.Store }

// OpenCrawl opens the crawl and learns its topics.
func (s *Store) OpenCrawl(ctx context.Context, spec crawler.CrawlSpec) (crawler.CrawlState, error) {
	s.W.SetTopics(spec.Topics)
	return s.Store.OpenCrawl(ctx, spec)
}

// Commit archives pages, then commits them.
func (s *Store) Commit(ctx context.Context, crawl int64, pages []*crawler.Page, push []crawler.Entry) error {
	for _, p := range pages {
		if err := s.W.WritePage(ctx, p); err != nil {
			return err
		}
		if s.DropRaw {
			p.Exchanges = nil
		}
	}
	return s.Store.Commit(ctx, crawl, pages, push)
}

package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// The ways a sitemap is refused.
var (
	ErrTooLarge  = errors.New("sitemap too large")
	ErrTooMany   = errors.New("sitemap lists too many entries")
	ErrMalformed = errors.New("malformed sitemap")
)

// Limits bound what Parse reads. The zero value of a field means its
// default, the protocol's limits.
type Limits struct {
	// MaxBytes is the most bytes read after decompression. Default 50 MiB.
	MaxBytes int64
	// MaxEntries is the most URLs (or sitemaps of an index). Default 50,000.
	MaxEntries int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 50 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 50000
	}
	return l
}

// Entry is one URL of a sitemap (or one sitemap of an index).
type Entry struct {
	Loc string
	// LastMod is when the page last changed, as the site says; zero when
	// absent or unreadable.
	LastMod time.Time
}

// Sitemap is a parsed sitemap.
type Sitemap struct {
	// Index is set for a sitemap index: Entries are sitemaps.
	Index   bool
	Entries []Entry
	// Skipped counts entries left out: not absolute http(s) URLs.
	Skipped int
}

// Parse reads one sitemap: XML or plain text, gzip-compressed or not.
func Parse(r io.Reader, lim Limits) (*Sitemap, error) {
	lim = lim.withDefaults()
	br := bufio.NewReader(r)
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
		}
		defer gz.Close()
		br = bufio.NewReader(gz)
	}
	lr := &limitReader{r: br, left: lim.MaxBytes}
	body := bufio.NewReader(lr)
	// XML starts with '<' after optional spaces and a byte order mark.
	head, _ := body.Peek(512)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	var sm *Sitemap
	var err error
	if len(head) > 0 && head[0] == '<' {
		sm, err = parseXML(body, lim)
	} else {
		sm, err = parseText(body, lim)
	}
	if lr.over {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, lim.MaxBytes)
	}
	return sm, err
}

type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a sitemap of exactly the limit from a
		// longer one.
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
			return 0, ErrTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func parseText(r *bufio.Reader, lim Limits) (*Sitemap, error) {
	sm := &Sitemap{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == "" {
			continue
		}
		if err := sm.add(line, "", lim); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(sm.Entries) == 0 && sm.Skipped > 0 {
		return nil, fmt.Errorf("%w: no URL in %d lines of text", ErrMalformed, sm.Skipped)
	}
	return sm, nil
}

// add appends an entry when loc is an absolute http(s) URL.
func (sm *Sitemap) add(loc, lastmod string, lim Limits) error {
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(loc) > 2048 {
		sm.Skipped++
		return nil
	}
	if len(sm.Entries) >= lim.MaxEntries {
		return fmt.Errorf("%w: more than %d", ErrTooMany, lim.MaxEntries)
	}
	sm.Entries = append(sm.Entries, Entry{Loc: loc, LastMod: ParseLastMod(lastmod)})
	return nil
}

func parseXML(r io.Reader, lim Limits) (*Sitemap, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		// Sitemaps must be UTF-8; other labels are read as they come.
		return in, nil
	}
	sm := &Sitemap{}
	var root string
	var inEntry bool
	var field string // "loc" or "lastmod" while inside one
	var loc, lastmod strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			switch {
			case root == "":
				if name != "urlset" && name != "sitemapindex" {
					return nil, fmt.Errorf("%w: root element <%s>, want <urlset> or <sitemapindex>", ErrMalformed, t.Name.Local)
				}
				root = name
				sm.Index = name == "sitemapindex"
			case name == "url" || name == "sitemap":
				inEntry = true
				loc.Reset()
				lastmod.Reset()
			case inEntry && (name == "loc" || name == "lastmod"):
				field = name
			}
		case xml.CharData:
			switch field {
			case "loc":
				if loc.Len()+len(t) <= 4096 {
					loc.Write(t)
				}
			case "lastmod":
				if lastmod.Len()+len(t) <= 64 {
					lastmod.Write(t)
				}
			}
		case xml.EndElement:
			name := strings.ToLower(t.Name.Local)
			switch {
			case name == "loc" || name == "lastmod":
				field = ""
			case inEntry && (name == "url" || name == "sitemap"):
				inEntry = false
				if l := strings.TrimSpace(loc.String()); l != "" {
					if err := sm.add(l, strings.TrimSpace(lastmod.String()), lim); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if root == "" {
		return nil, fmt.Errorf("%w: no <urlset> or <sitemapindex>", ErrMalformed)
	}
	return sm, nil
}

// ParseLastMod reads a W3C datetime (2006-01-02, 2006-01-02T15:04Z07:00,
// with seconds and fractions or without); the zero time when it cannot.
func ParseLastMod(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

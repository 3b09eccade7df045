package refresh

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Event is one observed version of a page: the time it was first seen and
// whether the page was gone (deleted) from then on.
type Event struct {
	Time    time.Time
	Deleted bool
}

// PageHistory is the observed versions of one page, oldest first. The
// first event is the page's first version; every later one is a change
// (a deletion or a return counts as a change).
type PageHistory struct {
	URL    string
	Events []Event
}

// Changes is the number of changes: the events after the first.
func (p *PageHistory) Changes() int { return max(len(p.Events)-1, 0) }

// BadLine is a line of a history file that could not be read.
type BadLine struct {
	Line int    // from 1
	Err  string // why
}

// History is a change history: pages checked at a fine, regular interval
// (hourly for the shared history) and the times their content changed.
type History struct {
	// Pages are ordered by URL.
	Pages []PageHistory
	// Start and End are the times of the earliest and the latest event.
	Start, End time.Time
	// Lines is the number of lines read, Bad the ones that were not
	// events (they are left out; the rest is kept).
	Lines int
	Bad   []BadLine
	// BadCount is the number of bad lines: Bad keeps the first maxBad
	// with their reason, and a line of its own counts the rest.
	BadCount int
}

// historyLine is the part of a line of a history file that scheduling
// uses; the text of the version is read past.
type historyLine struct {
	URL     string     `json:"url"`
	Time    *time.Time `json:"time"`
	Deleted bool       `json:"deleted"`
}

// maxBad bounds the bad lines kept with their reason; more are counted
// only.
const maxBad = 1000

// ReadHistory reads a change history: one JSON object a line with the
// page's "url", the "time" its version was first seen (RFC 3339) and
// "deleted"; other fields are ignored. The input may be gzip-compressed.
// A line that is not such an object is recorded in History.Bad and
// skipped; only a failure to read the input is an error.
func ReadHistory(r io.Reader) (*History, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read change history: %w", err)
		}
		defer zr.Close()
		src = bufio.NewReaderSize(zr, 1<<20)
	}
	lr := src.(*bufio.Reader)
	h := &History{}
	byURL := map[string]int{}
	for {
		line, err := lr.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: read the rest of it.
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = lr.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if len(line) > 0 {
			h.Lines++
			if why := h.addLine(line, byURL); why != "" {
				h.BadCount++
				if len(h.Bad) < maxBad {
					h.Bad = append(h.Bad, BadLine{Line: h.Lines, Err: why})
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read change history, line %d: %w", h.Lines+1, err)
		}
	}
	if h.BadCount > len(h.Bad) {
		h.Bad = append(h.Bad, BadLine{Line: 0, Err: fmt.Sprintf("%d more bad lines", h.BadCount-len(h.Bad))})
	}
	slices.SortFunc(h.Pages, func(a, b PageHistory) int { return strings.Compare(a.URL, b.URL) })
	for i := range h.Pages {
		ev := h.Pages[i].Events
		slices.SortStableFunc(ev, func(a, b Event) int { return a.Time.Compare(b.Time) })
	}
	return h, nil
}

// addLine adds one line's event to h; it returns why the line is bad, or
// "" when it was added (blank lines are neither).
func (h *History) addLine(line []byte, byURL map[string]int) string {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return ""
	}
	var l historyLine
	if err := json.Unmarshal(line, &l); err != nil {
		return "not a JSON object: " + err.Error()
	}
	switch {
	case l.URL == "":
		return "no url"
	case l.Time == nil || l.Time.IsZero():
		return "no time"
	}
	t := l.Time.UTC()
	i, ok := byURL[l.URL]
	if !ok {
		i = len(h.Pages)
		byURL[l.URL] = i
		h.Pages = append(h.Pages, PageHistory{URL: l.URL})
	}
	h.Pages[i].Events = append(h.Pages[i].Events, Event{Time: t, Deleted: l.Deleted})
	if h.Start.IsZero() || t.Before(h.Start) {
		h.Start = t
	}
	if t.After(h.End) {
		h.End = t
	}
	return ""
}

// Changes is the number of changes of every page.
func (h *History) Changes() int {
	n := 0
	for i := range h.Pages {
		n += h.Pages[i].Changes()
	}
	return n
}

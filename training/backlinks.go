package training

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/urlnorm"
)

// Backlink is a link from Parent to Target. When Context is set it is the
// link's segment (tokens before, anchor, after), as a store of earlier
// crawls records it; otherwise Build fetches Parent and cuts the segment
// out of it.
type Backlink struct {
	Parent  urlnorm.URL
	Target  urlnorm.URL
	Context []string
}

// BacklinkSource finds links that point to the given targets; the store of
// earlier crawls implements it.
type BacklinkSource interface {
	Backlinks(ctx context.Context, targets []urlnorm.URL, limit int) ([]Backlink, error)
}

// maxBacklinkLine bounds a line of a backlinks file: a row of two URLs is
// far shorter, and a file given by mistake (/dev/zero, a binary file
// without line breaks) is refused without being read whole.
const maxBacklinkLine = 64 << 10

// errLongLine is what a lineBound reader returns past its bound.
var errLongLine = fmt.Errorf("a line longer than %d bytes: not a CSV file of two URLs a row", maxBacklinkLine)

// lineBound reads r and fails once a line runs past max bytes.
type lineBound struct {
	r   io.Reader
	run int // bytes since the last line break
	max int
}

func (l *lineBound) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.run = 0
			continue
		}
		if l.run++; l.run > l.max {
			return i, errLongLine
		}
	}
	return n, err
}

// ReadBacklinks reads a CSV file of "parent_url,target_url" rows; a first
// row naming the columns is skipped. A line of more than 64 KiB fails it.
func ReadBacklinks(r io.Reader) ([]Backlink, error) {
	cr := csv.NewReader(&lineBound{r: r, max: maxBacklinkLine})
	cr.FieldsPerRecord = 2
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	var out []Backlink
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("backlinks: %w", err)
		}
		if line == 1 && strings.EqualFold(rec[0], "parent_url") {
			continue
		}
		p, err := urlnorm.Parse(rec[0])
		if err != nil {
			return nil, fmt.Errorf("backlinks line %d: parent: %w", line, err)
		}
		t, err := urlnorm.Parse(rec[1])
		if err != nil {
			return nil, fmt.Errorf("backlinks line %d: target: %w", line, err)
		}
		out = append(out, Backlink{Parent: p, Target: t})
	}
}

// LoadBacklinks reads a backlinks CSV file.
func LoadBacklinks(path string) ([]Backlink, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadBacklinks(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// backlinkExamples turns the backlinks of the examples into training
// documents of their target's class: the given links first, then those the
// source finds. Links without context are fetched (through f) and the
// segments pointing at the target are cut out of the parent page. It
// returns the documents and their count per class.
func backlinkExamples(ctx context.Context, docs []doc, f Fetcher, opts Options) ([]classify.Example, map[string]int, error) {
	classOf := make(map[urlnorm.URL]string)
	var targets []urlnorm.URL
	for _, d := range docs {
		if d.src.URL.IsZero() {
			continue
		}
		classOf[d.src.URL] = d.class
		targets = append(targets, d.src.URL)
		if d.page.URL != d.src.URL {
			classOf[d.page.URL] = d.class
			targets = append(targets, d.page.URL)
		}
	}
	links := append([]Backlink(nil), opts.Backlinks...)
	if opts.BacklinkSource != nil && len(targets) > 0 {
		found, err := opts.BacklinkSource.Backlinks(ctx, targets, opts.MaxBacklinks)
		if err != nil {
			return nil, nil, fmt.Errorf("backlinks: %w", err)
		}
		links = append(links, found...)
	}
	type fetchJob struct {
		parent  urlnorm.URL
		targets map[urlnorm.URL]bool
	}
	var out []classify.Example
	count := make(map[string]int)
	byParent := make(map[urlnorm.URL]*fetchJob)
	var order []*fetchJob
	seen := make(map[string]bool)
	// stored: the links whose segments a source gave; the file may name
	// them too, and a link is one training document however many
	// sources know it.
	stored := make(map[[2]urlnorm.URL]bool)
	for _, l := range links {
		if len(l.Context) > 0 {
			stored[[2]urlnorm.URL{l.Parent, l.Target}] = true
		}
	}
	for _, l := range links {
		class, ok := classOf[l.Target]
		if !ok || l.Parent == l.Target {
			continue
		}
		if len(l.Context) > 0 {
			key := l.Parent.String() + " " + l.Target.String() + " " + strings.Join(l.Context, " ")
			if !seen[key] {
				seen[key] = true
				out = append(out, classify.Example{Class: class, Tokens: l.Context})
				count[class]++
			}
			continue
		}
		if stored[[2]urlnorm.URL{l.Parent, l.Target}] {
			continue
		}
		j := byParent[l.Parent]
		if j == nil {
			j = &fetchJob{parent: l.Parent, targets: make(map[urlnorm.URL]bool)}
			byParent[l.Parent] = j
			order = append(order, j)
		}
		j.targets[l.Target] = true
	}
	results := make([][]classify.Example, len(order))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Parallel)
	for i, j := range order {
		g.Go(func() error {
			res, err := f.Fetch(gctx, j.parent, nil)
			if err != nil {
				return nil // an unreachable parent only loses its segments
			}
			pg, err := splitResult(res, opts)
			if err != nil {
				return nil
			}
			for _, s := range pg.Segments {
				if j.targets[s.URL] {
					results[i] = append(results[i], classify.Example{Class: classOf[s.URL], Tokens: s.Tokens(nil)})
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	for _, r := range results {
		for _, e := range r {
			out = append(out, e)
			count[e.Class]++
		}
	}
	return out, count, nil
}

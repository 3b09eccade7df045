package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/urlnorm"
)

// openStore opens (creating it if need be) the database of a crawl the
// experiment runs.
func openStore(ctx context.Context, path string) (*sqlite.Store, error) {
	return sqlite.Open(ctx, path)
}

// Notices is where OpenExisting tells that it upgraded a database.
var Notices io.Writer = os.Stderr

// OpenExisting opens an existing database for reading only: export,
// report, search, dedup and layout never write to its crawls. A database
// whose schema is older than this scent reads (written by an older
// scent) is first brought up to date, as a crawl would (sqlite.Upgrade,
// told on Notices), unless a crawl of it is running or the file cannot
// be written: then the error says so.
func OpenExisting(ctx context.Context, db string) (*sqlite.Store, error) {
	if postgres.IsURL(db) {
		return nil, fmt.Errorf("database %s: this command reads SQLite databases only (scent report, export and search read a PostgreSQL crawl)", db)
	}
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("database %s: %w", db, err)
	}
	return sqlite.OpenReading(ctx, db, Notices)
}

// OpenCrawl opens an existing database and finds the crawl named name in
// it (the latest when name is empty). The caller closes the store.
func OpenCrawl(ctx context.Context, db, name string) (*sqlite.Store, sqlite.CrawlInfo, error) {
	store, err := OpenExisting(ctx, db)
	if err != nil {
		return nil, sqlite.CrawlInfo{}, err
	}
	c, err := store.Crawl(ctx, name)
	if err != nil {
		store.Close()
		return nil, c, err
	}
	return store, c, nil
}

// ExportLine is one line of "scent export --format jsonl".
type ExportLine struct {
	Order       int                `json:"order"`
	URL         string             `json:"url"`
	FinalURL    string             `json:"final_url"`
	Status      int                `json:"status"`
	FetchedAt   time.Time          `json:"fetched_at"`
	Topic       string             `json:"stack,omitempty"` // crawler.Page.Topic, written as "stack" as export always has
	Depth       int                `json:"depth"`
	Size        int                `json:"size"`
	ContentType string             `json:"content_type,omitempty"`
	Title       string             `json:"title,omitempty"`
	Failure     string             `json:"failure,omitempty"`
	DuplicateOf string             `json:"duplicate_of,omitempty"` // URL of the original of a near-duplicate
	Scores      map[string]float64 `json:"score"`
	Relevant    map[string]bool    `json:"relevant"`
	Text        *string            `json:"text,omitempty"` // the extracted text, with ExportOptions.Text
}

// ExportOptions choose what "scent export --format jsonl" writes. The
// zero value writes every fetch, without text.
type ExportOptions struct {
	// Text adds each page's extracted text to its line ("text").
	Text bool
	// Relevant keeps the pages the crawl's page classifier found on any
	// topic; Topic, those it found on that one (Relevant or not).
	Relevant bool
	Topic    string
	// Originals leaves out the near-duplicates of pages stored before
	// them (duplicate_of).
	Originals bool
}

// keeps reports whether o writes page p.
func (o ExportOptions) keeps(p *crawler.Page) bool {
	if o.Originals && !p.DuplicateOf.IsZero() {
		return false
	}
	if o.Topic != "" {
		return p.Relevant[o.Topic]
	}
	if !o.Relevant {
		return true
	}
	for _, rel := range p.Relevant {
		if rel {
			return true
		}
	}
	return false
}

// exportLine is the export line of page p.
func exportLine(p *crawler.Page) ExportLine {
	e := ExportLine{Order: p.Order, URL: p.URL.String(), FinalURL: p.FinalURL.String(), Status: p.Status, FetchedAt: p.FetchedAt,
		Topic: p.Topic, Depth: p.Depth, Size: p.Size, ContentType: p.ContentType, Title: p.Title, Failure: p.Failure,
		DuplicateOf: p.DuplicateOf.String(), Scores: p.Scores, Relevant: p.Relevant}
	if e.Scores == nil {
		e.Scores = map[string]float64{}
		e.Relevant = map[string]bool{}
	}
	return e
}

// ExportJSONL writes the pages of crawl name of db (a SQLite file or a
// postgres:// URL, read with o) to w as JSON lines ("scent export
// --format jsonl"), in fetch order. A read that fails midway (a database
// server lost past o.MaxOutage) leaves on w the lines of the pages read
// before, whole, and its error says how many: the output is incomplete.
func ExportJSONL(ctx context.Context, db, name string, o ReadOptions, eo ExportOptions, w io.Writer) error {
	store, c, err := OpenCrawlReader(ctx, db, name, o)
	if err != nil {
		return err
	}
	defer store.Close()
	if eo.Topic != "" {
		eo.Topic = classify.NameOf(eo.Topic)
		if !slices.Contains(c.Topics, eo.Topic) {
			return fmt.Errorf("crawl %q has no topic %q (its topics: %s)", c.Name, eo.Topic, strings.Join(c.Topics, ", "))
		}
	}
	each := store.EachPage
	if eo.Text {
		each = store.EachPageText
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	n := 0
	err = each(ctx, c.ID, func(p *crawler.Page) error {
		if !eo.keeps(p) {
			return nil
		}
		line := exportLine(p)
		if eo.Text {
			line.Text = &p.Text
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil && n > 0 {
		if bw.Flush() == nil {
			return fmt.Errorf("export of crawl %s stopped after %d pages, the output is incomplete: %w", c.Name, n, err)
		}
		return fmt.Errorf("export of crawl %s stopped, the output is incomplete: %w", c.Name, err)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// Measure measures one crawl of db (a SQLite file or a postgres:// URL,
// read with o); with labels it also evaluates
// the link classifier, at the thresholds of th (per topic, "" for every
// topic, report.DefaultThreshold otherwise). learnt, when not nil, lists
// the pages the model learnt from: they are no recall targets.
func Measure(ctx context.Context, db, name string, o ReadOptions, labelsPath string, every int, topics []string, scope string, th map[string]float64, learnt []urlnorm.URL) (*report.Report, error) {
	if scope != report.ScopeCrawledHosts && scope != report.ScopeAllLabels {
		return nil, fmt.Errorf("unknown --targets %q (want %s or %s)", scope, report.ScopeCrawledHosts, report.ScopeAllLabels)
	}
	var labels report.Labels
	if labelsPath != "" {
		var err error
		if labels, err = report.LoadLabels(labelsPath); err != nil {
			return nil, err
		}
	}
	store, c, err := OpenCrawlReader(ctx, db, name, o)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if len(topics) == 0 {
		topics = c.Topics
	}
	if len(topics) == 0 {
		return nil, fmt.Errorf("crawl %q has no model topics: name the topics to measure with --topics", c.Name)
	}
	// A topic given by its label ("Course") is measured by its name, as
	// the seed file named it and the labels read (classify.NameOf).
	topics = slices.Clone(topics)
	for i, t := range topics {
		topics[i] = classify.NameOf(t)
	}
	if err := checkMeasured(c, topics, th); err != nil {
		return nil, err
	}
	rep := report.New(c.Name, c.Strategy, topics, labels, every)
	rep.TargetScope = scope
	if learnt != nil {
		rep.Exclude(learnt)
	}
	for _, t := range rep.Topics {
		if v, ok := th[t.Topic]; ok {
			t.Threshold = v
		} else if v, ok := th[""]; ok {
			t.Threshold = v
		}
	}
	err = store.EachPage(ctx, c.ID, func(p *crawler.Page) error {
		rep.Add(p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if labels != nil {
		err = store.EachLink(ctx, c.ID, func(l *crawler.PageLink) error {
			rep.AddLink(l)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("report on crawl %s: %w", c.Name, err)
		}
	}
	rep.Finish()
	if el, n, err := store.Elapsed(ctx, c.ID); err == nil && el > 0 {
		// Fetch times of all runs of the crawl: pauses between runs count.
		rep.FetchesPerSecond = float64(n-1) / el.Seconds()
		rep.PagesPerSecond = rep.FetchesPerSecond * float64(rep.Pages) / float64(n)
		rep.RatesByFetchTimes = true
	}
	return rep, nil
}

// checkMeasured refuses what would make a report of zeros that look like
// a finding: a topic the crawl did not crawl for, a link threshold for a
// topic not measured.
func checkMeasured(c crawler.CrawlInfo, topics []string, th map[string]float64) error {
	for _, t := range topics {
		if len(c.Topics) > 0 && !slices.Contains(c.Topics, t) {
			return fmt.Errorf("crawl %q has no topic %s (its topics: %s)", c.Name, t, strings.Join(c.Topics, ", "))
		}
	}
	for t := range th {
		if t != "" && !slices.Contains(topics, t) {
			return fmt.Errorf("link threshold for %s, a topic not measured (%s)", t, strings.Join(topics, ", "))
		}
	}
	return nil
}

// CheckLabels refuses labels (read from labelsPath) given to measure
// topics that label no page with one of them: every count of the topic
// would be 0, which reads as a finding. (An experiment's own labels file
// may lack a topic: its seeds reach no page of it, and its report says 0
// targets.)
func CheckLabels(labels report.Labels, labelsPath string, topics []string) error {
	count := make(map[string]int)
	for _, l := range labels {
		count[l]++
	}
	var missing []string
	for _, t := range topics {
		if count[t] == 0 {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	have := slices.Sorted(maps.Keys(count))
	if i := slices.Index(have, ""); i >= 0 {
		have = slices.Delete(have, i, i+1)
	}
	if len(have) == 0 {
		return fmt.Errorf("labels file %s labels no page (%d lines without a label)", labelsPath, count[""])
	}
	return fmt.Errorf("labels file %s labels no page %s (its labels: %s): every count of the topic would be 0; measure the topics it labels (--topics), or give the labels of this crawl's collection",
		labelsPath, strings.Join(missing, ", "), strings.Join(have, ", "))
}

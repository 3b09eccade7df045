package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/sqlite"
)

// exportPage is one line of "scent export --format jsonl".
type exportPage struct {
	Order       int                `json:"order"`
	URL         string             `json:"url"`
	FinalURL    string             `json:"final_url"`
	Status      int                `json:"status"`
	FetchedAt   time.Time          `json:"fetched_at"`
	Stack       string             `json:"stack,omitempty"`
	Depth       int                `json:"depth"`
	Size        int                `json:"size"`
	ContentType string             `json:"content_type,omitempty"`
	Title       string             `json:"title,omitempty"`
	Failure     string             `json:"failure,omitempty"`
	DuplicateOf string             `json:"duplicate_of,omitempty"` // URL of the original of a near-duplicate
	Score       map[string]float64 `json:"score"`
	Relevant    map[string]bool    `json:"relevant"`
}

func newExportCmd() *cobra.Command {
	var db, name, format, out string
	cmd := &cobra.Command{
		Use:   "export --db FILE [--crawl NAME] [--out FILE]",
		Short: "Write the pages of a crawl, one JSON object per line in fetch order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "jsonl" {
				return fmt.Errorf("unknown --format %q (want jsonl)", format)
			}
			if out == "" || out == "-" {
				return exportJSONL(cmd.Context(), db, name, cmd.OutOrStdout())
			}
			return writeFileAtomic(out, func(f *os.File) error { return exportJSONL(cmd.Context(), db, name, f) })
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "SQLite database")
	cmd.Flags().StringVar(&name, "crawl", "", "crawl name (default: the latest crawl)")
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output)")
	return cmd
}

func exportJSONL(ctx context.Context, db, name string, w io.Writer) error {
	store, err := openExisting(ctx, db)
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := store.Crawl(ctx, name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	err = store.EachPage(ctx, c.ID, func(p *sqlite.PageRow) error {
		e := exportPage{Order: p.Order, URL: p.URL, FinalURL: p.FinalURL, Status: p.Status, FetchedAt: p.FetchedAt,
			Stack: p.Topic, Depth: p.Depth, Size: p.Size, ContentType: p.ContentType, Title: p.Title, Failure: p.Failure,
			DuplicateOf: p.DuplicateOf, Score: p.Scores, Relevant: p.Relevant}
		if e.Score == nil {
			e.Score = map[string]float64{}
			e.Relevant = map[string]bool{}
		}
		return enc.Encode(e)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func openExisting(ctx context.Context, db string) (*sqlite.Store, error) {
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("database %s: %w", db, err)
	}
	return sqlite.Open(ctx, db)
}

func newReportCmd() *cobra.Command {
	var db, name, labels, format, out string
	var every int
	var topics []string
	var scope string
	cmd := &cobra.Command{
		Use:   "report --db FILE [--labels FILE] [--format json|md]",
		Short: "Measure a crawl: precision, recall and harvest rate per topic",
		Long: `report reads a crawl from the database and, per topic, counts the pages
fetched and the relevant ones — by a labels file (url<TAB>label, as written
by "scent labels") when given, otherwise by the page classifier (then marked
as estimated) — and gives precision, recall against the labelled pages of the
crawled hosts, and harvest-rate points every --every pages.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := buildReport(cmd.Context(), db, name, labels, every, topics, scope)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error {
				switch format {
				case "json":
					return rep.WriteJSON(w)
				case "md", "markdown":
					return rep.WriteMarkdown(w)
				}
				return fmt.Errorf("unknown --format %q (want json or md)", format)
			}
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout())
			}
			return writeFileAtomic(out, func(f *os.File) error { return write(f) })
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "SQLite database")
	cmd.Flags().StringVar(&name, "crawl", "", "crawl name (default: the latest crawl)")
	cmd.Flags().StringVar(&labels, "labels", "", "labels file: url<TAB>label per line")
	cmd.Flags().StringVar(&format, "format", "md", "json or md")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output)")
	cmd.Flags().IntVar(&every, "every", 100, "harvest-curve spacing in pages")
	cmd.Flags().StringSliceVar(&topics, "topics", nil, "topics to measure (default: the crawl's model topics; needed for a bfs crawl without model)")
	cmd.Flags().StringVar(&scope, "targets", report.ScopeCrawledHosts, "recall denominator: crawled-hosts (labelled pages on crawled hosts) or all-labels")
	return cmd
}

func buildReport(ctx context.Context, db, name, labelsPath string, every int, topics []string, scope string) (*report.Report, error) {
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
	store, err := openExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	c, err := store.Crawl(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(topics) == 0 {
		topics = c.Topics
	}
	if len(topics) == 0 {
		return nil, fmt.Errorf("crawl %q has no model topics: name the topics to measure with --topics", c.Name)
	}
	rep := report.New(c.Name, c.Strategy, topics, labels, every)
	rep.TargetScope = scope
	err = store.EachPage(ctx, c.ID, func(p *sqlite.PageRow) error {
		rep.Add(report.Page{URL: p.URL, FinalURL: p.FinalURL, Stack: p.Topic, Failed: p.Failure != "", Duplicate: p.DuplicateOf != "", Relevant: p.Relevant})
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Finish()
	if el, n, err := store.Elapsed(ctx, c.ID); err == nil && el > 0 {
		// Fetch times of all runs of the crawl: pauses between runs count.
		rep.FetchesPerSecond = float64(n-1) / el.Seconds()
		rep.PagesPerSecond = rep.FetchesPerSecond * float64(rep.Pages) / float64(n)
	}
	return rep, nil
}

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

	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/warc"
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
	var warcMax int64
	cmd := &cobra.Command{
		Use:   "export --db FILE [--crawl NAME] [--out FILE] [--format jsonl|warc]",
		Short: "Write the pages of a crawl, one JSON object per line in fetch order, or as WARC files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "warc" {
				return exportWARC(cmd.Context(), db, name, out, warcMax, cmd.ErrOrStderr())
			}
			if format != "jsonl" {
				return fmt.Errorf("unknown --format %q (want jsonl or warc)", format)
			}
			if out == "" || out == "-" {
				return exportJSONL(cmd.Context(), db, name, cmd.OutOrStdout())
			}
			return writeFileAtomic(out, func(f *os.File) error { return exportJSONL(cmd.Context(), db, name, f) })
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "SQLite database")
	cmd.Flags().StringVar(&name, "crawl", "", "crawl name (default: the latest crawl)")
	cmd.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl, or warc (WARC 1.1 files of the raw responses into the directory --out)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default standard output); a directory for warc")
	cmd.Flags().Int64Var(&warcMax, "warc-max-size", warc.DefaultMaxFileSize, "with --format warc: start a new file past this many bytes")
	return cmd
}

func exportJSONL(ctx context.Context, db, name string, w io.Writer) error {
	store, c, err := openCrawl(ctx, db, name)
	if err != nil {
		return err
	}
	defer store.Close()
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

// openExisting opens an existing database for reading only: export,
// report, search, dedup and layout never write to it.
func openExisting(ctx context.Context, db string) (*sqlite.Store, error) {
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("database %s: %w", db, err)
	}
	return sqlite.OpenReadOnly(ctx, db)
}

// openCrawl opens an existing database and finds the crawl named name in
// it (the latest when name is empty). The caller closes the store.
func openCrawl(ctx context.Context, db, name string) (*sqlite.Store, sqlite.CrawlInfo, error) {
	store, err := openExisting(ctx, db)
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

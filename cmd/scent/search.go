package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/experiment"
)

// searchHit is one result of "scent search --json".
type searchHit struct {
	Rank    int     `json:"rank"`
	Score   float64 `json:"score"`
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Snippet string  `json:"snippet"`
	Crawl   string  `json:"crawl"`
}

// newSearchCmd builds "scent search QUERY": full-text search of the stored
// pages that are not near-duplicates.
func newSearchCmd() *cobra.Command {
	var db string
	var limit int
	var asJSON bool
	var rf readFlags
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search the text of the stored pages (near-duplicates left out)",
		Long: `Search looks the query up in the full-text index of the database: the
title and text of every page fetched successfully that is not a
near-duplicate of a page stored before it, over all crawls of the database.
Results are shown with their URL, title and a snippet in which matching
words are in [brackets].

In a SQLite file (--db FILE) results are ranked by BM25 (title words weigh
twice) and the query uses SQLite FTS4 syntax: words are all required,
"a phrase", OR between alternatives, -word to exclude, word* for a prefix.
In a PostgreSQL database (--db postgres://USER@HOST:PORT/DB, as for scent
crawl) they are ranked by PostgreSQL's ts_rank_cd (title over text) and
the query uses web search syntax, with English stemming: words are all
required, "a phrase", OR between alternatives, -word to exclude. A
server lost during the search (restarted, failed over) is waited for,
reconnecting, for up to --max-outage (30 minutes), as scent crawl does,
and the search run again; results are printed once it answered. A server
away longer ends the command with exit status 3.`,
		Example: `  scent search --db scent.db machine learning
  scent search --limit 20 --json '"operating systems" OR kernel'
  scent search --db postgres://scent@127.0.0.1:5433/crawl syllabus`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := rf.options(cmd)
			if err != nil {
				return err
			}
			return runSearch(cmd.Context(), cmd.OutOrStdout(), db, o, strings.Join(args, " "), limit, asJSON)
		},
	}
	cmd.Flags().StringVar(&db, "db", "scent.db", "database: a SQLite file, or postgres://USER@HOST:PORT/DB")
	cmd.Flags().IntVar(&limit, "limit", 10, "most results shown")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON, one array")
	rf.register(cmd.Flags())
	return cmd
}

func runSearch(ctx context.Context, w io.Writer, db string, o experiment.ReadOptions, query string, limit int, asJSON bool) error {
	if limit <= 0 {
		return fmt.Errorf("--limit must be positive, not %d", limit)
	}
	store, err := experiment.OpenReader(ctx, db, o)
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := store.Search(ctx, query, limit)
	if err != nil {
		return err
	}
	hits := make([]searchHit, len(res))
	for i, r := range res {
		hits[i] = searchHit{Rank: i + 1, Score: r.Score, URL: r.URL, Title: r.Title, Snippet: r.Snippet, Crawl: r.Crawl}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(hits)
	}
	if len(hits) == 0 {
		_, err := fmt.Fprintf(w, "no page matches %q\n", query)
		return err
	}
	var b strings.Builder
	for _, h := range hits {
		title := h.Title
		if title == "" {
			title = "(no title)"
		}
		fmt.Fprintf(&b, "%d. %s  [%.2f]\n   %s\n   %s\n", h.Rank, title, h.Score, h.URL, oneLine(h.Snippet))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// oneLine collapses runs of white space, line breaks included.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

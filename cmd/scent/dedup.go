package main

import (
	"context"
	"encoding/json"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/dedup"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/sqlite"
)

// dedupOptions are the settings of scent dedup.
type dedupOptions struct {
	db, crawl, archive, out string
	json                    bool
}

// newDedupCmd builds "scent dedup": recheck a store (or an archive) for
// near-duplicates and list the clusters.
func newDedupCmd() *cobra.Command {
	var o dedupOptions
	cmd := &cobra.Command{
		Use:   "dedup [--db FILE] [--crawl NAME] [--json]",
		Short: "Recheck stored pages for near-duplicates and list the clusters",
		Long: `Dedup signs the stored text of every page fetched successfully that has
text (a frame set, whose text is empty, has nothing to compare), in the
order the pages were stored, with the database's min-hash parameters, and
groups each page with the earliest page it is a near-duplicate of (two of
six min-hash features agree: resemblance above about 0.77). It prints every
cluster: the original, then each copy with its estimated resemblance to the
original, how many of the six features agree, and "=" when its text is
identical to an earlier page's. It also counts the pages whose recheck
differs from the duplicate_of recorded when they were stored (with --crawl,
pages recorded as copies of another crawl's pages differ by design; without
--crawl, every crawl of the database is read, and a URL stored by two crawls
is a page of each).
Nothing in the database is changed.

With --archive, dedup reads a collection (a WebKB .tgz or folder, as
"scent replay" serves it) instead of a database: every stored file, in name
order, with its text extracted as the crawler does.`,
		Example: `  scent dedup --db scent.db
  scent dedup --db scent.db --crawl bfs --json
  scent dedup --archive ../shared/corpus/webkb.tgz --out clusters.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := runDedup(cmd.Context(), o)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error {
				if o.json {
					enc := json.NewEncoder(w)
					enc.SetIndent("", "  ")
					return enc.Encode(rep)
				}
				return rep.WriteText(w)
			}
			if o.out == "" || o.out == "-" {
				return write(cmd.OutOrStdout())
			}
			return writeFileAtomic(o.out, func(f *os.File) error { return write(f) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.db, "db", "scent.db", "SQLite database")
	f.StringVar(&o.crawl, "crawl", "", "only the pages of this crawl (default: every crawl of the database)")
	f.StringVar(&o.archive, "archive", "", "read a collection (.tgz or folder) instead of the database")
	f.BoolVar(&o.json, "json", false, "print the clusters as JSON")
	f.StringVarP(&o.out, "out", "o", "", "output file (default standard output)")
	return cmd
}

// runDedup rechecks a store or an archive.
func runDedup(ctx context.Context, o dedupOptions) (*dedup.Report, error) {
	if o.archive != "" {
		return dedup.Archive(ctx, o.archive)
	}
	store, err := experiment.OpenExisting(ctx, o.db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var crawl int64
	source := o.db
	if o.crawl != "" {
		c, err := store.Crawl(ctx, o.crawl)
		if err != nil {
			return nil, err
		}
		crawl = c.ID
		source += " crawl " + c.Name
	}
	params, err := store.MinhashParams(ctx)
	if err != nil {
		return nil, err
	}
	signer, err := minhash.NewSigner(params)
	if err != nil {
		return nil, err
	}
	c, err := dedup.NewClusterer(signer, source)
	if err != nil {
		return nil, err
	}
	err = store.EachText(ctx, crawl, func(r *sqlite.TextRow) error {
		return c.Add(ctx, dedup.Doc{ID: r.ID, URL: r.URL, Text: r.Text, StoredOriginal: r.DuplicateOf, Stored: true})
	})
	if err != nil {
		return nil, err
	}
	return c.Report(), nil
}

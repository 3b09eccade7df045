package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/segment"
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
		Long: `Dedup signs the stored text of every page fetched successfully, in the
order the pages were stored, with the database's min-hash parameters, and
groups each page with the earliest page it is a near-duplicate of (two of
six min-hash features agree: resemblance above about 0.77). It prints every
cluster: the original, then each copy with its estimated resemblance to the
original, how many of the six features agree, and "=" when its text is
identical to an earlier page's. It also counts the pages whose recheck
differs from the duplicate_of recorded when they were stored (with --crawl,
pages recorded as copies of another crawl's pages differ by design).
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
				return rep.writeText(w)
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

// dedupReport is the result of scent dedup; its JSON form is the --json
// output.
type dedupReport struct {
	Source string `json:"source"`
	Params string `json:"params"`
	// Pages is the number of pages checked.
	Pages int `json:"pages"`
	// Duplicates is the number of pages that are near-duplicates of an
	// earlier page; IdenticalText counts those whose text (white space
	// aside) equals an earlier page's.
	Duplicates    int `json:"duplicates"`
	IdenticalText int `json:"identical_text"`
	// Disagree counts the pages whose recheck differs from the
	// duplicate_of recorded at store time (database only).
	Disagree int             `json:"disagree_with_store"`
	Clusters []*dedupCluster `json:"clusters"`
}

// dedupCluster is an original page with its near-duplicates.
type dedupCluster struct {
	Original   string      `json:"original"`
	OriginalID int64       `json:"original_id"`
	Copies     []dedupCopy `json:"copies"`
}

// dedupCopy is one near-duplicate of a cluster's original.
type dedupCopy struct {
	URL string `json:"url"`
	ID  int64  `json:"id"`
	// Resemblance estimates the Jaccard resemblance of the 8-word shingle
	// sets of the copy and the original (minhash.Resemblance).
	Resemblance float64 `json:"resemblance"`
	// Features is how many of the six features agree with the original.
	Features int `json:"features_agreeing"`
	// Identical is true when the text equals an earlier page's text.
	Identical bool `json:"identical_text"`
}

// dedupDoc is one page given to a clusterer.
type dedupDoc struct {
	ID   int64
	URL  string
	Text string
	// StoredOriginal is the duplicate_of recorded at store time (0: none);
	// Stored says whether the doc comes from a store at all.
	StoredOriginal int64
	Stored         bool
}

// clusterer groups pages, in the order they are added, with the earliest
// page they are near-duplicates of. It keeps the signature and URL of
// every original (about 0.8 KB a page) and the text hash of every page.
type clusterer struct {
	signer   *minhash.Signer
	index    *minhash.MemIndex
	origs    map[int64]origInfo
	texts    map[[32]byte]int64 // hash of the words → first page
	clusters map[int64]*dedupCluster
	rep      *dedupReport
	// origOf maps every page to its original (itself for originals), and
	// sameText every page whose text is identical to an earlier page's to
	// the first such page, for tests that check grouping.
	origOf   map[int64]int64
	sameText map[int64]int64
}

type origInfo struct {
	url string
	sig minhash.Signature
}

func newClusterer(signer *minhash.Signer, source string) (*clusterer, error) {
	params, err := signer.Params().MarshalText()
	if err != nil {
		return nil, err
	}
	return &clusterer{
		signer: signer, index: minhash.NewMemIndex(0),
		origs: make(map[int64]origInfo), texts: make(map[[32]byte]int64),
		clusters: make(map[int64]*dedupCluster), origOf: make(map[int64]int64), sameText: make(map[int64]int64),
		rep: &dedupReport{Source: source, Params: string(params)},
	}, nil
}

// add checks the next page.
func (c *clusterer) add(ctx context.Context, d dedupDoc) error {
	c.rep.Pages++
	sig := c.signer.Sign(d.Text)
	identical := false
	if sig.Indexable() {
		h := sha256.Sum256([]byte(strings.Join(strings.Fields(d.Text), " ")))
		if first, ok := c.texts[h]; ok {
			identical = true
			c.sameText[d.ID] = first
		} else {
			c.texts[h] = d.ID
		}
	}
	orig, dup, err := c.index.CheckAndInsert(ctx, d.ID, sig)
	if err != nil {
		return fmt.Errorf("check %s: %w", d.URL, err)
	}
	c.origOf[d.ID] = orig
	recheck := int64(0)
	if dup {
		recheck = orig
		o := c.origs[orig]
		cl := c.clusters[orig]
		if cl == nil {
			cl = &dedupCluster{Original: o.url, OriginalID: orig}
			c.clusters[orig] = cl
			c.rep.Clusters = append(c.rep.Clusters, cl)
		}
		cl.Copies = append(cl.Copies, dedupCopy{URL: d.URL, ID: d.ID, Resemblance: minhash.Resemblance(o.sig, sig),
			Features: minhash.AgreeingFeatures(o.sig, sig), Identical: identical})
		c.rep.Duplicates++
		if identical {
			c.rep.IdenticalText++
		}
	} else if sig.Indexable() {
		c.origs[d.ID] = origInfo{url: d.URL, sig: sig}
	}
	if d.Stored && recheck != d.StoredOriginal {
		c.rep.Disagree++
	}
	return nil
}

// runDedup rechecks a store or an archive.
func runDedup(ctx context.Context, o dedupOptions) (*dedupReport, error) {
	if o.archive != "" {
		return dedupArchive(ctx, o.archive)
	}
	store, err := openExisting(ctx, o.db)
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
	c, err := newClusterer(signer, source)
	if err != nil {
		return nil, err
	}
	err = store.EachText(ctx, crawl, func(r *sqlite.TextRow) error {
		return c.add(ctx, dedupDoc{ID: r.ID, URL: r.URL, Text: r.Text, StoredOriginal: r.DuplicateOf, Stored: true})
	})
	if err != nil {
		return nil, err
	}
	return c.rep, nil
}

// dedupArchive checks every stored file of a collection, in name order;
// ids are positions in that order, from 1.
func dedupArchive(ctx context.Context, path string) (*dedupReport, error) {
	c, _, err := clusterArchive(ctx, path)
	if err != nil {
		return nil, err
	}
	return c.rep, nil
}

// clusterArchive returns the clusterer after checking every file of the
// collection at path, and the texts' pages by id.
func clusterArchive(ctx context.Context, path string) (*clusterer, []*replay.Page, error) {
	a, err := replay.Open(path)
	if err != nil {
		return nil, nil, err
	}
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		return nil, nil, err
	}
	c, err := newClusterer(signer, path)
	if err != nil {
		return nil, nil, err
	}
	files := a.Files()
	for i, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		text := ""
		if p.Status == 200 {
			// Files that are not text (binary, unknown charset) have no
			// words, like pages the crawler records as failed.
			if pg, err := segment.Split(p.Body, p.ContentType(), p.URL, segment.Options{}); err == nil {
				text = pg.Text
			}
		}
		if err := c.add(ctx, dedupDoc{ID: int64(i + 1), URL: p.URL.String(), Text: text}); err != nil {
			return nil, nil, err
		}
	}
	return c, files, nil
}

// writeText writes the report as a plain listing.
func (r *dedupReport) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# near-duplicate clusters of %s\n# params: %s\n", r.Source, r.Params)
	fmt.Fprintf(&b, "# %d pages checked, %d clusters, %d near-duplicates (%d with text identical to an earlier page)",
		r.Pages, len(r.Clusters), r.Duplicates, r.IdenticalText)
	if r.Disagree > 0 {
		fmt.Fprintf(&b, ", %d differ from the store's duplicate_of", r.Disagree)
	}
	b.WriteString("\n# columns: resemblance to the original, features agreeing of 6, = when the text is identical\n")
	for i, cl := range r.Clusters {
		fmt.Fprintf(&b, "\ncluster %d (%d pages)\n  original         %s\n", i+1, len(cl.Copies)+1, cl.Original)
		for _, cp := range cl.Copies {
			same := " "
			if cp.Identical {
				same = "="
			}
			fmt.Fprintf(&b, "  %.3f  %d/6  %s   %s\n", cp.Resemblance, cp.Features, same, cp.URL)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package dedup

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"

	"github.com/scent-crawler/scent/minhash"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/segment"
)

// Report lists the near-duplicate clusters of a sequence of pages; its
// JSON form is the output of "scent dedup --json".
type Report struct {
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
	Disagree int        `json:"disagree_with_store"`
	Clusters []*Cluster `json:"clusters"`
}

// Cluster is an original page with its near-duplicates.
type Cluster struct {
	Original   string `json:"original"`
	OriginalID int64  `json:"original_id"`
	Copies     []Copy `json:"copies"`
}

// Copy is one near-duplicate of a cluster's original.
type Copy struct {
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

// Doc is one page given to a Clusterer.
type Doc struct {
	ID   int64
	URL  string
	Text string
	// StoredOriginal is the duplicate_of recorded at store time (0: none);
	// Stored says whether the doc comes from a store at all.
	StoredOriginal int64
	Stored         bool
}

// Clusterer groups pages, in the order they are added, with the earliest
// page they are near-duplicates of. It keeps the signature and URL of
// every original (about 0.8 KB a page) and the text hash of every page.
type Clusterer struct {
	signer   *minhash.Signer
	index    *minhash.MemIndex
	origs    map[int64]origInfo
	texts    map[[32]byte]int64 // hash of the words → first page
	clusters map[int64]*Cluster
	rep      *Report
	// origOf maps every page to its original (itself for originals), and
	// sameText every page whose text is identical to an earlier page's to
	// the first such page.
	origOf   map[int64]int64
	sameText map[int64]int64
}

// Report returns the report of the pages added so far.
func (c *Clusterer) Report() *Report {
	if c.rep.Clusters == nil {
		c.rep.Clusters = []*Cluster{} // [] in JSON, not null
	}
	return c.rep
}

// OriginalOf returns the original of the page with id (itself for an
// original) and whether the page was added.
func (c *Clusterer) OriginalOf(id int64) (int64, bool) {
	o, ok := c.origOf[id]
	return o, ok
}

// SameText returns, for every page whose text (white space aside) equals
// an earlier page's, the id of the first such page.
func (c *Clusterer) SameText() map[int64]int64 { return c.sameText }

type origInfo struct {
	url string
	sig minhash.Signature
}

// NewClusterer returns a clusterer that signs pages with signer; source
// names what is checked in the report.
func NewClusterer(signer *minhash.Signer, source string) (*Clusterer, error) {
	params, err := signer.Params().MarshalText()
	if err != nil {
		return nil, err
	}
	return &Clusterer{
		signer: signer, index: minhash.NewMemIndex(0),
		origs: make(map[int64]origInfo), texts: make(map[[32]byte]int64),
		clusters: make(map[int64]*Cluster), origOf: make(map[int64]int64), sameText: make(map[int64]int64),
		rep: &Report{Source: source, Params: string(params)},
	}, nil
}

// Add checks the next page.
func (c *Clusterer) Add(ctx context.Context, d Doc) error {
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
			cl = &Cluster{Original: o.url, OriginalID: orig}
			c.clusters[orig] = cl
			c.rep.Clusters = append(c.rep.Clusters, cl)
		}
		cl.Copies = append(cl.Copies, Copy{URL: d.URL, ID: d.ID, Resemblance: minhash.Resemblance(o.sig, sig),
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

// Archive checks every stored file of a collection, in name order;
// ids are positions in that order, from 1.
func Archive(ctx context.Context, path string) (*Report, error) {
	c, _, err := ClusterArchive(ctx, path)
	if err != nil {
		return nil, err
	}
	return c.Report(), nil
}

// ClusterArchive returns the clusterer after checking every file of the
// collection at path, and the texts' pages by id.
func ClusterArchive(ctx context.Context, path string) (*Clusterer, []*replay.Page, error) {
	a, err := replay.Open(path, replay.Options{}) // every file is read; which one a URL keeps does not matter
	if err != nil {
		return nil, nil, err
	}
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		return nil, nil, err
	}
	c, err := NewClusterer(signer, path)
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
			if pg, err := segment.Split(p.Body(), p.ContentType(), p.URL, segment.Options{}); err == nil {
				text = pg.Text
			}
		}
		if err := c.Add(ctx, Doc{ID: int64(i + 1), URL: p.URL.String(), Text: text}); err != nil {
			return nil, nil, err
		}
	}
	return c, files, nil
}

// WriteText writes the report as a plain listing.
func (r *Report) WriteText(w io.Writer) error {
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

package dedup

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/sharedtest"
	"github.com/scent-crawler/scent/minhash"
)

// TestClusterArchive_webkb checks every WebKB file: pages whose extracted
// text is identical all fall in one cluster.
func TestClusterArchive_webkb(t *testing.T) {
	path := sharedtest.Path(t, "corpus/webkb.tgz")
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	c, files, err := ClusterArchive(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Report().Pages != len(files) || len(files) < 8000 {
		t.Fatalf("%d pages checked of %d files", c.Report().Pages, len(files))
	}
	if len(c.SameText()) == 0 || len(c.SameText()) != c.Report().IdenticalText {
		t.Fatalf("%d pages with identical text, %d counted as such among duplicates", len(c.SameText()), c.Report().IdenticalText)
	}
	for id, first := range c.SameText() {
		oi, _ := c.OriginalOf(id)
		of, _ := c.OriginalOf(first)
		if oi != of {
			t.Errorf("%s and %s have identical text but originals %d and %d", files[id-1].URL, files[first-1].URL, oi, of)
		}
	}
	t.Logf("%d files, %d clusters, %d near-duplicates, %d with identical text", len(files), len(c.Report().Clusters), c.Report().Duplicates, c.Report().IdenticalText)
}

// TestClusterer_Add groups a copy and a near-copy with their original and
// leaves an unrelated page alone.
func TestClusterer_Add(t *testing.T) {
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClusterer(signer, "test")
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(strings.Repeat("the course covers crawling ranking indexing and retrieval of web pages with exercises every week ", 6))
	text := strings.Join(words, " ")
	near := strings.Join(append(words[:len(words)-1:len(words)-1], "month"), " ")
	other := strings.Repeat("photos of my cat and dog on holiday by the sea in summer light ", 6)
	docs := []Doc{{ID: 1, URL: "http://a.test/", Text: text}, {ID: 2, URL: "http://b.test/", Text: other},
		{ID: 3, URL: "http://c.test/", Text: "  " + text}, {ID: 4, URL: "http://d.test/", Text: near}}
	for _, d := range docs {
		if err := c.Add(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	rep := c.Report()
	if rep.Pages != 4 || rep.Duplicates != 2 || rep.IdenticalText != 1 || len(rep.Clusters) != 1 {
		t.Fatalf("report %+v: want 4 pages, 2 duplicates (1 identical), 1 cluster", rep)
	}
	if cl := rep.Clusters[0]; cl.OriginalID != 1 || len(cl.Copies) != 2 || !cl.Copies[0].Identical || cl.Copies[1].Identical || cl.Copies[1].Resemblance >= 1 {
		t.Errorf("cluster %+v", cl)
	}
	if o, ok := c.OriginalOf(2); !ok || o != 2 {
		t.Errorf("OriginalOf(2) = %d, %v; want itself", o, ok)
	}
	if got := c.SameText(); len(got) != 1 || got[3] != 1 {
		t.Errorf("SameText = %v, want 3 → 1", got)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "=   http://c.test/") {
		t.Errorf("WriteText: %v\n%s", err, b.String())
	}
}

// TestClusterer_noPagesJSON: a report of no duplicates has an empty
// list of clusters in JSON ([]), not null.
func TestClusterer_noPagesJSON(t *testing.T) {
	signer, err := minhash.NewSigner(minhash.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClusterer(signer, "empty")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c.Report())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"clusters":[]`) {
		t.Errorf("JSON of no duplicates: %s", b)
	}
}

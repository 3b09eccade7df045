package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/scent-crawler/scent/archive"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/sqlite"
	"github.com/scent-crawler/scent/warc"
)

// archiveFlags say what a crawl keeps of the raw responses.
type archiveFlags struct {
	raw     bool
	dir     string
	maxSize int64
}

func (a *archiveFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&a.raw, "raw", true, "keep every response as received (status line, headers, body), compressed, in the database; --raw=false keeps only the extracted text")
	fs.StringVar(&a.dir, "warc", "", "also write the crawl as WARC 1.1 files into this directory as it goes")
	fs.Int64Var(&a.maxSize, "warc-max-size", warc.DefaultMaxFileSize, "start a new WARC file past this many bytes")
	setFlagGroup(fs, "output", "raw", "warc", "warc-max-size")
}

// checkWARCMax refuses a --warc-max-size that would silently mean the
// default.
func checkWARCMax(n int64) error {
	if n <= 0 {
		return fmt.Errorf("--warc-max-size must be a positive number of bytes, not %d", n)
	}
	return nil
}

// warcInfo are the fields of every WARC file's warcinfo record.
func warcInfo(crawl string, fcfg fetch.Config) warc.Header {
	robots := "obey"
	if fcfg.IgnoreRobots {
		robots = "ignore"
	}
	ua := fcfg.UserAgent
	if ua == "" {
		ua = fetch.DefaultUserAgent
	}
	return warc.Header{
		{Name: "software", Value: "scent (https://github.com/scent-crawler/scent)"},
		{Name: "format", Value: "WARC File Format 1.1"},
		{Name: "conformsTo", Value: "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{Name: "isPartOf", Value: crawl},
		{Name: "robots", Value: robots},
		{Name: "http-header-user-agent", Value: ua},
	}
}

// archiveStore wraps store so that the crawl writes WARC files as it goes
// (when --warc is set); the returned function closes the open file.
func archiveStore(ctx context.Context, a *archiveFlags, crawl string, fcfg fetch.Config, store crawler.Store, log io.Writer) (crawler.Store, func() error, error) {
	if a.dir == "" {
		return store, func() error { return nil }, nil
	}
	d, err := warc.OpenDir(ctx, warc.DirConfig{Path: a.dir, MaxFileSize: a.maxSize, Info: warcInfo(crawl, fcfg)})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range d.Repaired {
		fmt.Fprintf(log, "warc: %s was left open: closed after its %d complete records (%d bytes of an incomplete one cut)\n", r.File, r.Records, r.Cut)
	}
	return &archive.Store{Store: store, W: archive.NewWriter(d, nil), DropRaw: !a.raw}, d.Close, nil
}

// exportWARC writes a stored crawl as WARC files into dir.
func exportWARC(ctx context.Context, db, name, dir string, maxSize int64, log io.Writer) error {
	if dir == "" || dir == "-" {
		return errors.New("--format warc needs --out DIR (a directory)")
	}
	store, c, err := experiment.OpenCrawl(ctx, db, name)
	if err != nil {
		return err
	}
	defer store.Close()
	// An export writes the whole crawl: into a folder that holds WARC
	// files already, it would write every record a second time beside
	// them. A file left open counts: OpenDir would close it as a whole
	// one.
	old, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	left, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz.open"))
	if len(left) > 0 {
		return fmt.Errorf("%s holds %d WARC files already, %d of them left open by a run that was killed: export into an empty or new folder (another export would write every record again beside them)", dir, len(old)+len(left), len(left))
	}
	if len(old) > 0 {
		return fmt.Errorf("%s holds %d WARC files already: export into an empty or new folder (another export would write every record again beside them)", dir, len(old))
	}
	d, err := warc.OpenDir(ctx, warc.DirConfig{Path: dir, MaxFileSize: maxSize, Info: warcInfo(c.Name, fetch.Config{})})
	if err != nil {
		return err
	}
	// An export that fails or is interrupted removes the files it wrote
	// (the folder held none before), rather than leaving a part of the
	// crawl that looks whole, and the same command starts over.
	done := false
	defer func() {
		if done {
			return
		}
		d.Close()
		for _, pattern := range []string{"*.warc.gz", "*.warc.gz.open"} {
			files, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, f := range files {
				os.Remove(f)
			}
		}
	}()
	w := archive.NewWriter(d, c.Topics)
	var pages, raw int
	err = store.EachFetch(ctx, c.ID, func(p *crawler.Page) error {
		pages++
		if len(p.Exchanges) > 0 {
			raw++
		}
		return w.WritePage(ctx, p)
	})
	var revisits, unarchived int
	if err == nil {
		err = store.EachUnchangedCheck(ctx, c.ID, func(u sqlite.UnchangedCheck) error {
			ok, err := w.WriteRevisit(ctx, u.URL, u.FinalURL, u.CheckedAt, u.Status == http.StatusNotModified)
			if ok {
				revisits++
			} else {
				unarchived++
			}
			return err
		})
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	done = true
	files, _ := d.Files()
	fmt.Fprintf(log, "%d fetches (%d with raw responses) written to %d WARC files in %s: %d request, %d response, %d revisit, %d metadata records\n",
		pages, raw, len(files), dir, w.Records[warc.TypeRequest], w.Records[warc.TypeResponse], w.Records[warc.TypeRevisit], w.Records[warc.TypeMetadata])
	if revisits+unarchived > 0 {
		fmt.Fprintf(log, "%d revisits found their page unchanged: %d revisit records (%d without an archived response to refer to)\n", revisits+unarchived, revisits, unarchived)
	}
	if raw < pages {
		fmt.Fprintf(log, "%d fetches have no raw response (refused before a request, or crawled with --raw=false): metadata records only\n", pages-raw)
	}
	return nil
}

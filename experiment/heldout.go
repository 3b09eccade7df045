package experiment

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/internal/owner"
	"github.com/scent-crawler/scent/linkgraph"
	"github.com/scent-crawler/scent/postgres"
	"github.com/scent-crawler/scent/replay"
	"github.com/scent-crawler/scent/report"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// TrainedFile is the list of the pages a model learnt from that an
// experiment writes beside its model, and that "scent report" reads
// beside a database when given no --trained or --seeds.
const TrainedFile = "trained.txt"

// TrainedPathFor is where "scent train" writes the pages a model learnt
// from: beside the model, course.json → course.trained.txt.
func TrainedPathFor(model string) string {
	return strings.TrimSuffix(model, filepath.Ext(model)) + ".trained.txt"
}

// LearntOf returns the pages a model built by TrainModelWith from s with
// the flags mf learnt from: its examples and negatives and the parents of
// its backlink segments, those rec recorded (the source given to
// TrainModelWith), those of --backlinks and, when no source was given,
// those --backlinks-db holds for the examples.
func LearntOf(ctx context.Context, s *training.Seeds, mf *training.Settings, rec *training.BacklinkRecorder) ([]urlnorm.URL, error) {
	var links []training.Backlink
	if rec != nil {
		links = rec.Links()
	}
	if mf.Backlinks != "" {
		b, err := training.LoadBacklinks(mf.Backlinks)
		if err != nil {
			return nil, err
		}
		links = append(links, b...)
	}
	if rec == nil && mf.BacklinkDB != "" {
		store, err := OpenExisting(ctx, mf.BacklinkDB)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		b, err := store.Backlinks(ctx, training.LearntFrom(s, nil), 10000)
		if err != nil {
			return nil, fmt.Errorf("pages learnt from: %w", err)
		}
		links = append(links, b...)
	}
	return training.LearntFrom(s, links), nil
}

// WriteLearnt writes to path the pages a model trained from s with the
// flags mf learnt from (LearntOf; rec, when not nil, recorded the
// backlinks its training read), so that a report of its crawls can leave
// them out of the targets (--trained), and returns them. "scent train"
// writes them beside the model it writes, "scent crawl" beside the model
// it trains.
func WriteLearnt(ctx context.Context, path string, s *training.Seeds, mf *training.Settings, rec *training.BacklinkRecorder) ([]urlnorm.URL, error) {
	learnt, err := LearntOf(ctx, s, mf, rec)
	if err != nil {
		return nil, err
	}
	return learnt, WriteTrained(path, learnt)
}

// WriteTrained writes the list of the pages a model learnt from (urls)
// to path, one a line, with a header comment (ReadTrained reads it).
func WriteTrained(path string, urls []urlnorm.URL) error {
	err := writeFileAtomic(path, func(f *os.File) error {
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "# %d pages the model learnt from (its examples and the pages whose links it trained on): no recall targets\n", len(urls))
		for _, u := range urls {
			fmt.Fprintln(w, u)
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// maxTrainedLine bounds a line of a list of trained pages: a URL is far
// shorter, and a file given by mistake (a database, a device) is refused
// without being read whole.
const maxTrainedLine = 64 << 10

// ReadTrained reads a list written by WriteTrained: one URL a line,
// blank lines and '#' comments skipped. A line that is no URL is
// refused with its number and at most its first 60 bytes, so that a
// binary file given by mistake does not fill the error.
func ReadTrained(path string) ([]urlnorm.URL, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := []urlnorm.URL{} // not nil: a list was given
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxTrainedLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := urlnorm.Parse(line)
		if err != nil {
			if len(line) > 60 {
				return nil, fmt.Errorf("%s line %d: not a URL (%q…, %d bytes): want one URL a line", path, n, line[:60], len(line))
			}
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, u)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s line %d: longer than %d bytes: not a list of URLs, one a line", path, n+1, maxTrainedLine)
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// baselines measures breadth-first and the all-knowing plan on the
// held-out targets of an experiment over a replayed collection.
type baselines struct {
	collection *replay.Archive
	seeds      []urlnorm.URL
	labels     report.Labels   // the recall targets (all labels in scope)
	bfs        []*crawler.Page // breadth-first over every page reachable from seeds
	plans      map[string][]report.ShareMark
}

// newBaselines loads the labels and the breadth-first crawl of every page
// reachable from seeds (from the cache, or crawled through f and cached).
func newBaselines(ctx context.Context, a *replay.Archive, archivePath string, seeds []urlnorm.URL, labelPath string, f *fetch.Fetcher, workers int) (*baselines, error) {
	labels, err := report.LoadLabels(labelPath)
	if err != nil {
		return nil, err
	}
	pages, err := bfsPages(ctx, archivePath, seeds, f, workers)
	if err != nil {
		return nil, err
	}
	return &baselines{collection: a, seeds: seeds, labels: labels, bfs: pages, plans: make(map[string][]report.ShareMark)}, nil
}

// apply sets the breadth-first comparison and the plan of every topic of
// rep, measured on the same targets: the labels without learnt.
func (b *baselines) apply(rep *report.Report, learnt []urlnorm.URL) {
	topics := make([]string, len(rep.Topics))
	for i, t := range rep.Topics {
		topics[i] = t.Topic
	}
	bfs := report.New("breadth-first", "bfs", topics, b.labels, rep.Every)
	bfs.TargetScope = rep.TargetScope
	bfs.Exclude(learnt)
	for _, p := range b.bfs {
		bfs.Add(p)
	}
	bfs.Finish()
	rep.Compare(bfs)
	key := fmt.Sprint(learnt)
	held := report.HeldOut(b.labels, learnt)
	for _, t := range rep.Topics {
		k := t.Topic + " " + key
		plan, ok := b.plans[k]
		if !ok {
			var targets []urlnorm.URL
			for u, l := range held {
				if l == t.Topic {
					targets = append(targets, u)
				}
			}
			for _, p := range linkgraph.TargetPlan(b.collection, b.seeds, targets, report.Shares) {
				m := report.ShareMark{Share: p.Share}
				if p.Fetches > 0 {
					m.Pages = &p.Fetches
				}
				plan = append(plan, m)
			}
			b.plans[k] = plan
		}
		t.Plan = plan
	}
}

// bfsPages returns the fetches, in order, of a breadth-first crawl of
// every page reachable from seeds in the collection at archivePath
// (lockstep, so always the same). The crawl runs once per collection,
// seeds and workers: its fetches are kept in the user's cache folder
// (scent/bfs-KEY.tsv) and read from there afterwards.
func bfsPages(ctx context.Context, archivePath string, seeds []urlnorm.URL, f *fetch.Fetcher, workers int) ([]*crawler.Page, error) {
	cache := ""
	if dir, err := os.UserCacheDir(); err == nil {
		if fi, err := os.Stat(archivePath); err == nil {
			abs, _ := filepath.Abs(archivePath)
			h := sha256.Sum256([]byte(fmt.Sprintf("bfs v1\n%s\n%d\n%s\n%v\n%d", abs, fi.Size(), fi.ModTime().UTC(), seeds, workers)))
			cache = filepath.Join(dir, "scent", "bfs-"+hex.EncodeToString(h[:8])+".tsv")
		}
	}
	if cache != "" {
		if pages, err := readPages(cache); err == nil {
			return pages, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	work, err := owner.TempDir("scent-bfs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	db := filepath.Join(work, "scent.db")
	store, err := openStore(ctx, db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	cfg := crawler.Config{Name: "bfs", Strategy: crawler.StrategyBFS, Workers: workers, Lockstep: true,
		Segment: segment.Options{Window: 10}}
	c, err := crawler.New(cfg, store, f, nil)
	if err != nil {
		return nil, err
	}
	if _, err := c.Run(ctx, seeds, RecordedSettings(cfg, map[string]any{"experiment": "breadth-first baseline"})); err != nil {
		return nil, fmt.Errorf("breadth-first baseline: %w", err)
	}
	info, err := store.Crawl(ctx, "bfs")
	if err != nil {
		return nil, err
	}
	var pages []*crawler.Page
	if err := store.EachPage(ctx, info.ID, func(p *crawler.Page) error {
		pages = append(pages, &crawler.Page{URL: p.URL, FinalURL: p.FinalURL, Failure: p.Failure})
		return nil
	}); err != nil {
		return nil, err
	}
	if cache != "" && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		// A cache that cannot be written only costs the next run a crawl.
		_ = writeFileAtomic(cache, func(f *os.File) error {
			w := bufio.NewWriter(f)
			for _, p := range pages {
				failed := 0
				if p.Failure != "" {
					failed = 1
				}
				fmt.Fprintf(w, "%s\t%s\t%d\n", p.URL, p.FinalURL, failed)
			}
			return w.Flush()
		})
	}
	return pages, nil
}

// cachedFailure is the Failure of a failed fetch read from a cache file
// of bfsPages, which keeps only whether a fetch failed.
const cachedFailure = "failed (breadth-first cache)"

// readPages reads the fetches a cache file of bfsPages holds: their URL,
// final URL and whether they failed (Failure cachedFailure).
func readPages(path string) ([]*crawler.Page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*crawler.Page
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("%s line %d: want URL, final URL and failed", path, i+1)
		}
		u, err := urlnorm.Parse(f[0])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		final, err := urlnorm.Parse(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		p := &crawler.Page{URL: u, FinalURL: final}
		if f[2] == "1" {
			p.Failure = cachedFailure
		}
		out = append(out, p)
	}
	return out, nil
}

// LearntFor returns the pages the model of crawl (the latest when empty)
// in db learnt from: those listed in trained, else the examples of the
// seed file seeds, else those the crawl kept in the store
// (crawler.Config.Learnt), else those of TrainedFile beside a SQLite db,
// else nil (none known: every labelled page is a target). It tells on
// notice where the list came from, or that there is none.
func LearntFor(ctx context.Context, db, crawl string, o ReadOptions, trained, seeds string, notice io.Writer) ([]urlnorm.URL, error) {
	switch {
	case trained != "":
		return ReadTrained(trained)
	case seeds != "":
		s, err := training.LoadSeeds(seeds)
		if err != nil {
			return nil, err
		}
		return training.LearntFrom(s, nil), nil
	}
	if _, err := os.Stat(db); err == nil || postgres.IsURL(db) {
		kept, name, err := keptLearnt(ctx, db, crawl, o)
		if err != nil {
			return nil, err
		}
		if len(kept) > 0 {
			fmt.Fprintf(notice, "report: the %d pages the model of crawl %q learnt from, kept with it, are no targets\n", len(kept), name)
			return kept, nil
		}
	}
	if postgres.IsURL(db) {
		fmt.Fprintf(notice, "report: no list of the pages the model learnt from: the crawl kept none (a crawl of an older scent, or without a model); give --trained (MODEL.trained.txt of scent train) or --seeds; every labelled page is a target\n")
		return nil, nil
	}
	beside := filepath.Join(filepath.Dir(db), TrainedFile)
	if _, err := os.Stat(beside); err != nil {
		fmt.Fprintf(notice, "report: no list of the pages the model learnt from (kept with the crawl, --trained, --seeds or %s beside %s): every labelled page is a target\n", TrainedFile, db)
		return nil, nil
	}
	fmt.Fprintf(notice, "report: the pages the model learnt from are those of %s\n", beside)
	return ReadTrained(beside)
}

// keptLearnt reads the pages crawl (the latest when empty) of db kept as
// learnt from, and the crawl's name.
func keptLearnt(ctx context.Context, db, crawl string, o ReadOptions) ([]urlnorm.URL, string, error) {
	r, c, err := OpenCrawlReader(ctx, db, crawl, o)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	kept, err := r.Learnt(ctx, c.ID)
	return kept, c.Name, err
}

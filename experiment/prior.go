package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// PriorPathFor is where the link learner's prior of the model at path
// is kept (WritePrior): MODEL.prior.json beside MODEL.json.
func PriorPathFor(model string) string {
	return strings.TrimSuffix(model, filepath.Ext(model)) + ".prior.json"
}

// PriorKey fingerprints what the learner's prior of a crawl with the
// model at path is made from: the model file, the page judge beside it
// (PagePathFor) when withJudge, and the training pages of s with each
// topic's examples (topics in the crawl's order). A prior kept under
// another key was made for other models or pages.
func PriorKey(path string, withJudge bool, s *training.Seeds, topics []string) (string, error) {
	files := []string{path}
	if withJudge {
		files = append(files, PagePathFor(path))
	}
	var models [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("learner prior: %w", err)
		}
		models = append(models, b)
	}
	return PriorKeyOf(models, s, topics), nil
}

// PriorKeyOf is PriorKey of the models saved as models (the model of
// links first, then the page judge, if any).
func PriorKeyOf(models [][]byte, s *training.Seeds, topics []string) string {
	h := sha256.New()
	for _, b := range models {
		fmt.Fprintf(h, "file %d\n", len(b))
		h.Write(b)
	}
	writeURLs := func(name string, us []urlnorm.URL) {
		fmt.Fprintf(h, "%s %d\n", name, len(us))
		for _, u := range us {
			fmt.Fprintln(h, u)
		}
	}
	writeURLs("pages", s.Examples())
	for t, us := range TopicExamples(s, topics) {
		writeURLs("topic "+topics[t], us)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WritePrior reads the training pages of s with f (parallel at once)
// and keeps the links between them, as a crawl with sc and seg primes
// its learner with them (TrainingPrior), at path under key (PriorKey),
// so that a crawl with the same models and pages reads them from there
// (KeptPrior) rather than fetching every training page again. It
// returns how many links and pages it kept.
func WritePrior(ctx context.Context, path, key string, s *training.Seeds, sc crawler.Scorer, f crawler.Fetcher, seg segment.Options, parallel int) (links, pages int, err error) {
	b, links, pages, err := EncodePrior(ctx, key, s, sc, f, seg, parallel)
	if err != nil {
		return 0, 0, err
	}
	err = writeFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(b)
		return err
	})
	return links, pages, err
}

// EncodePrior is WritePrior's prior as the bytes it writes, for a store
// that keeps it elsewhere (a crawl's database).
func EncodePrior(ctx context.Context, key string, s *training.Seeds, sc crawler.Scorer, f crawler.Fetcher, seg segment.Options, parallel int) (b []byte, links, pages int, err error) {
	ls, n := learn.TrainingLinks(ctx, f, sc, seg, s.Examples(), TopicExamples(s, sc.Topics()), parallel)
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, err
	}
	var buf bytes.Buffer
	if err := learn.WritePrior(&buf, key, sc.Topics(), learn.Prior{Links: ls, Pages: n}); err != nil {
		return nil, 0, 0, err
	}
	return buf.Bytes(), len(ls), n, nil
}

// PriorSource is where a learner's prior may be kept (KeptPrior).
type PriorSource struct {
	// Where names the place in what the crawl says.
	Where string
	// Open returns the kept prior's bytes, or an error that wraps
	// os.ErrNotExist when none is kept there.
	Open func() (io.ReadCloser, error)
	// Missing says where a prior would come from, when none is kept.
	Missing string
}

// PriorFile is the prior kept in the file at path (WritePrior).
func PriorFile(path string) PriorSource {
	return PriorSource{Where: path, Missing: "scent train keeps one beside its model", Open: func() (io.ReadCloser, error) {
		// Stat first: opening a named pipe would wait for a writer.
		if fi, err := os.Stat(path); err != nil {
			return nil, err
		} else if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("not a regular file")
		} else if fi.Size() > learn.MaxPriorFileBytes {
			return nil, fmt.Errorf("%d bytes, more than the %d a prior may have", fi.Size(), learn.MaxPriorFileBytes)
		}
		return os.Open(path)
	}}
}

// KeptPrior returns a learner's prior (learn.Options.Prior) that reads
// the links kept in src under key (WritePrior, EncodePrior) and, when
// there are none there, they were kept for other models or pages, or
// they cannot be read, says so to progress and calls fetched
// (TrainingPrior) instead. release, when not nil, is called once the
// links are read either way.
func KeptPrior(src PriorSource, key string, topics []string, fetched func(context.Context) ([]learn.PriorLink, error), release func(), progress io.Writer) func(context.Context) ([]learn.PriorLink, error) {
	return func(ctx context.Context) ([]learn.PriorLink, error) {
		p, err := readPrior(src, key, topics)
		switch {
		case err == nil:
			if release != nil {
				release()
			}
			fmt.Fprintf(progress, "learner primed with %d links between %d training pages, kept in %s\n", len(p.Links), p.Pages, src.Where)
			return p.Links, nil
		case errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(progress, "no learner prior kept in %s (%s): reading the training pages\n", src.Where, src.Missing)
		default:
			fmt.Fprintf(progress, "%s: %v: reading the training pages again\n", src.Where, err)
		}
		return fetched(ctx)
	}
}

// readPrior reads the prior kept in src for key and topics.
func readPrior(src PriorSource, key string, topics []string) (learn.Prior, error) {
	r, err := src.Open()
	if err != nil {
		return learn.Prior{}, err
	}
	defer r.Close()
	return learn.ReadPrior(r, key, topics)
}

package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/learn"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestPriorKey: the key of a kept prior changes with the model file, the
// page judge's when it is used, the training pages and each topic's
// examples, and with nothing else.
func TestPriorKey(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(model, `{"model":1}`)
	write(experiment.PagePathFor(model), `{"judge":1}`)
	seeds := func(text string) *training.Seeds {
		t.Helper()
		s, err := training.ParseSeeds(strings.NewReader(text), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const base = "seed http://a.test/\ncourse http://a.test/c1\ncourse http://a.test/c2\nother http://a.test/o1\n"
	key := func(withJudge bool, s *training.Seeds) string {
		t.Helper()
		k, err := experiment.PriorKey(model, withJudge, s, []string{"course"})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key(true, seeds(base))
	if k := key(true, seeds(base)); k != k0 {
		t.Errorf("the same files and pages: key %s, then %s", k0, k)
	}
	if k := key(true, seeds(base+"seed http://b.test/\n")); k != k0 {
		t.Error("a crawl seed, which is no training page, changed the key")
	}
	for name, k := range map[string]string{
		"without the judge":      key(false, seeds(base)),
		"another negative":       key(true, seeds(base+"other http://a.test/o2\n")),
		"an example as negative": key(true, seeds(strings.Replace(base, "course http://a.test/c2", "other http://a.test/c2", 1))),
		"another kind of page":   key(true, seeds(base+"other:student http://a.test/s1\n")),
	} {
		if k == k0 {
			t.Errorf("%s: the key did not change", name)
		}
	}
	write(experiment.PagePathFor(model), `{"judge":2}`)
	if key(true, seeds(base)) == k0 {
		t.Error("another page judge: the key did not change")
	}
	write(model, `{"model":2}`)
	if key(true, seeds(base)) == k0 {
		t.Error("another model: the key did not change")
	}
	os.Remove(experiment.PagePathFor(model))
	if _, err := experiment.PriorKey(model, true, seeds(base), []string{"course"}); err == nil {
		t.Error("no error for a page judge that is not there")
	}
}

// TestKeptPrior_fallsBack: a kept prior that is missing, no regular file
// (a named pipe, which would block a reader) or too large to be one is
// not read: the prior is read from the training pages, saying why.
func TestKeptPrior_fallsBack(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.prior.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	huge := filepath.Join(dir, "huge.prior.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(learn.MaxPriorFileBytes + 1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	f.Close()
	fetched := []learn.PriorLink{{Source: urlnorm.MustParse("http://a.test/"), Target: urlnorm.MustParse("http://a.test/b"), Base: []float64{0.5}, Page: []float64{0.5}, Class: []int8{learn.PriorNot}}}
	for path, want := range map[string]string{
		filepath.Join(dir, "none.prior.json"): "no learner prior kept in ",
		fifo:                                  "not a regular file: reading the training pages again",
		huge:                                  "more than the 134217728 a prior may have: reading the training pages again",
	} {
		var progress strings.Builder
		released := false
		prior := experiment.KeptPrior(experiment.PriorFile(path), "k", []string{"course"}, func(context.Context) ([]learn.PriorLink, error) { return fetched, nil },
			func() { released = true }, &progress)
		done := make(chan []learn.PriorLink, 1)
		go func() {
			links, _ := prior(context.Background())
			done <- links
		}()
		select {
		case links := <-done:
			if len(links) != 1 || links[0].Target != fetched[0].Target {
				t.Errorf("%s: links %v, want those read from the training pages", filepath.Base(path), links)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the prior was not read in 10 s", filepath.Base(path))
		}
		if !strings.Contains(progress.String(), want) {
			t.Errorf("%s: said %q, want %q", filepath.Base(path), progress.String(), want)
		}
		if released {
			t.Errorf("%s: released by the kept prior, whose reading from the pages releases them itself", filepath.Base(path))
		}
	}
}

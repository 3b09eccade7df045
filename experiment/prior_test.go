package experiment_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/experiment"
	"github.com/scent-crawler/scent/training"
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

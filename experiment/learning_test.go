package experiment

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

func trainScorer(t *testing.T, examples map[string][]string) *training.Scorer {
	t.Helper()
	var ex []classify.Example
	for class, docs := range examples {
		for _, d := range docs {
			ex = append(ex, classify.Example{Class: class, Tokens: strings.Fields(d)})
		}
	}
	m, err := classify.Train(ex, classify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return training.NewScorer(m)
}

// TestPageScorer_picksTheCrawlsTopics: a page model with more topics than
// the crawl (--page-negatives labels) judges pages by the crawl's topics,
// in the crawl's order.
func TestPageScorer_picksTheCrawlsTopics(t *testing.T) {
	links := trainScorer(t, map[string][]string{
		"faculty": {"professor research", "professor teaching"},
		"other":   {"weather news", "sports scores"},
	})
	page := trainScorer(t, map[string][]string{
		"course":  {"syllabus homework", "lecture exam"},
		"faculty": {"professor research", "professor teaching"},
		"student": {"student advisor", "graduate student"},
		"other":   {"weather news", "sports scores"},
	})
	ps, err := newPageScorer(links, page)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"professor research teaching", "student advisor graduate", "syllabus homework exam"} {
		tokens := strings.Fields(doc)
		all := page.ScorePage(tokens, nil)
		got := ps.ScorePage(tokens, nil)
		want := all[slices.Index(page.Topics(), "faculty")]
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: page scores %v, want faculty's %v of %v %v", doc, got, want, page.Topics(), all)
		}
	}
	if got := ps.ScorePage(strings.Fields("professor research"), nil); got[0] < 0.5 {
		t.Errorf("a professor's page scores %v for faculty", got)
	}
	if got := ps.ScorePage(strings.Fields("graduate student advisor"), nil); got[0] >= 0.5 {
		t.Errorf("a student's page scores %v for faculty", got)
	}
	noFaculty := trainScorer(t, map[string][]string{
		"course": {"syllabus homework", "lecture exam"},
		"other":  {"weather news", "sports scores"},
	})
	if _, err := newPageScorer(links, noFaculty); err == nil || !strings.Contains(err.Error(), "faculty") {
		t.Errorf("a page model without the crawl's topic: error %v", err)
	}
}

// TestPageNegatives: with --page-negatives labels, the examples of every
// label but the crawl's topics were learnt from as negatives.
func TestPageNegatives(t *testing.T) {
	src := func(u string) training.Source { return training.Source{URL: urlnorm.MustParse(u)} }
	s := &training.Seeds{
		Topics: []string{"course", "faculty", "student"},
		Train: map[string][]training.Source{
			"course": {src("http://x/c")}, "faculty": {src("http://x/f")}, "student": {src("http://x/s1"), src("http://x/s2")},
		},
		Other: []training.Source{src("http://x/o")},
	}
	var got []string
	for _, so := range pageNegatives(s, []string{"faculty"}) {
		got = append(got, so.URL.String())
	}
	slices.Sort(got)
	if want := []string{"http://x/c", "http://x/o", "http://x/s1", "http://x/s2"}; !slices.Equal(got, want) {
		t.Errorf("negatives %v, want %v", got, want)
	}
}

// An experiment whose learner is primed reads each training page once:
// the model, the page model and the prior share the fetches (they were
// three before), and the crawl skips the examples.
func TestRun_trainingPagesFetchedOnce(t *testing.T) {
	var log lockedBuffer
	loopbackLog = &log
	defer func() { loopbackLog = nil }()
	archive := collectiontest.Write(t)
	out := filepath.Join(t.TempDir(), "once")
	o := gridOpts(archive, out).Spec
	o.Topics, o.Strategy, o.Frontier, o.Model.K, o.Model.Window, o.Model.Threshold = []string{"course"}, "link", crawler.FrontierStack, 20, 10, 0.76
	o.Model.Folds = 0
	o.PageNegatives, o.Learn, o.SkipExamples, o.LearnPrior = "labels", true, true, 1
	if _, err := Run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	seeds, err := training.LoadSeeds(filepath.Join(out, "seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	requests := map[string]int{}
	for _, line := range strings.Split(log.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			requests[f[1]]++
		}
	}
	pages := seeds.Examples()
	if len(pages) == 0 {
		t.Fatal("no training page")
	}
	for _, u := range pages {
		if n := requests[u.String()]; n != 1 {
			t.Errorf("%s requested %d times, want once", u, n)
		}
	}
}

// An experiment runs on a collection that shares no name with WebKB:
// its seeds are the home pages of its sites, its examples the group
// given, and its held-out targets the topic's pages reachable from the
// seeds.
func TestRun_anotherCollection(t *testing.T) {
	archive := collectiontest.WriteOther(t)
	out := filepath.Join(t.TempDir(), "other")
	o := gridOpts(archive, out).Spec
	// The group by default: pool, the one that is not a site.
	o.Group, o.Budget, o.Workers, o.Lockstep, o.Baseline = "", 30, 2, true, true
	o.Topics, o.Strategy, o.Frontier, o.Model.K, o.Model.Window, o.Model.Threshold = []string{"recipe"}, "link", crawler.FrontierStack, 20, 10, 0.5
	o.Model.Folds = 0
	o.PageNegatives, o.Learn, o.SkipExamples, o.LearnPrior, o.PagePriorMix = "labels", true, true, 1, 0.1
	o.PageAbsentDiscount, o.Model.AbsentDiscount = training.AutoAbsentDiscount, training.AutoAbsentDiscount
	var progress bytes.Buffer
	rep, err := Run(context.Background(), o, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "training group pool") {
		t.Errorf("progress does not name the training group chosen:\n%s", progress.String())
	}
	if raw, err := os.ReadFile(filepath.Join(out, "page-model.json")); err != nil {
		t.Error(err)
	} else if pm, err := classify.Load(bytes.NewReader(raw)); err != nil || pm.Options().PriorMix != 0.1 {
		t.Errorf("page model: %v; want its priors mixed by 0.1", err)
	} else if d := pm.Options().AbsentDiscount; math.Abs(d-1.0/24) > 1e-12 {
		// The pool's 24 pages are each on a host of their own.
		t.Errorf("page model: absent words discounted by %v, want the pool's site concentration 1/24", d)
	}
	// The link model learns from the 8 recipe and 8 other pages.
	if raw, err := os.ReadFile(filepath.Join(out, "model.json")); err != nil {
		t.Error(err)
	} else if m, err := classify.Load(bytes.NewReader(raw)); err != nil || math.Abs(m.Options().AbsentDiscount-1.0/16) > 1e-12 {
		t.Errorf("link model: %v, absent discount %v; want 1/16", err, m.Options().AbsentDiscount)
	}
	seeds, err := training.LoadSeeds(filepath.Join(out, "seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, u := range seeds.Crawl {
		starts = append(starts, u.String())
	}
	if want := []string{"http://n.test/", "http://s.test/"}; !slices.Equal(starts, want) {
		t.Errorf("seeds %q, want the sites' home pages %q", starts, want)
	}
	if n := len(seeds.Train["recipe"]); n != 8 {
		t.Errorf("%d examples, want the pool's 8 recipe pages", n)
	}
	ts := rep.Topics[0]
	if ts.Targets != 8 || ts.Found != 8 {
		t.Errorf("found %d of %d held-out targets, want all 8 recipe pages of the two sites", ts.Found, ts.Targets)
	}
	if ts.BFS == nil || len(ts.PagesTo) == 0 {
		t.Errorf("breadth-first or pages to 25 %%… not measured: %+v", ts)
	}

	// Seeds given: the crawl starts there, and the targets are the
	// pages reachable from there.
	o.Seeds, o.Out = []string{"http://n.test/"}, filepath.Join(t.TempDir(), "north")
	if rep, err = Run(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	if ts := rep.Topics[0]; ts.Targets != 4 || ts.Found != 4 {
		t.Errorf("from n.test: found %d of %d held-out targets, want north's 4 recipe pages", ts.Found, ts.Targets)
	}
	o.Seeds = []string{"::"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--seed") {
		t.Errorf("a seed that is no URL: %v", err)
	}
	o.Seeds, o.PagePriorMix = nil, 1
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--page-prior-mix") {
		t.Errorf("a page prior mix of 1: %v", err)
	}
	o.PagePriorMix, o.PageAbsentDiscount = 0.1, 1.5
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--page-absent-discount") {
		t.Errorf("a page absent discount of 1.5: %v", err)
	}
}

// With no page labelled "other" and every setting by default, an
// experiment trains on the group that is not a site with every page not
// labelled with the topic as a negative, its page model learns each
// label as a class of its own without an "other" class, and the crawl
// finds the held-out targets.
func TestRun_collectionWithoutOther(t *testing.T) {
	archive := collectiontest.WriteOther(t)
	if err := os.Rename(filepath.Join(archive, "other"), filepath.Join(archive, "plain")); err != nil {
		t.Fatal(err)
	}
	o := gridOpts(archive, filepath.Join(t.TempDir(), "plain")).Spec
	o.Group, o.Negatives, o.Budget, o.Workers, o.Lockstep = "", "", 30, 2, true
	o.Topics, o.Strategy, o.Frontier, o.Model.K, o.Model.Window, o.Model.Threshold = []string{"recipe"}, "link", crawler.FrontierStack, 20, 10, 0.5
	o.PageNegatives, o.Learn, o.SkipExamples, o.LearnPrior, o.PagePriorMix = "labels", true, true, 1, 0.1
	var progress bytes.Buffer
	rep, err := Run(context.Background(), o, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if !strings.Contains(progress.String(), "negative examples: every page of pool not labelled with a topic") {
		t.Errorf("progress does not say which negatives:\n%s", progress.String())
	}
	seeds, err := training.LoadSeeds(filepath.Join(o.Out, "seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds.Train["recipe"]) != 8 || len(seeds.Other) != 0 || len(seeds.Kinded) != 16 || !slices.Equal(seeds.Kinds, []string{"plain", "review"}) {
		t.Errorf("%d examples, %d plain negatives and %d of kinds %v, want pool's 8 recipe pages and its 16 others by their kind",
			len(seeds.Train["recipe"]), len(seeds.Other), len(seeds.Kinded), seeds.Kinds)
	}
	if raw, err := os.ReadFile(filepath.Join(o.Out, "page-model.json")); err != nil {
		t.Error(err)
	} else if pm, err := classify.Load(bytes.NewReader(raw)); err != nil {
		t.Error(err)
	} else if !slices.Equal(pm.Classes(), []string{"plain", "recipe", "review"}) {
		t.Errorf("page model classes %q, want pool's three labels", pm.Classes())
	}
	if ts := rep.Topics[0]; ts.Targets != 8 || ts.Found != 8 {
		t.Errorf("found %d of %d held-out targets, want all 8 recipe pages of the two sites", ts.Found, ts.Targets)
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRecordRewards: the reward thresholds a model's cross-validation
// chose go into the model file and come back for the crawl's topics, in
// the crawl's order; a damaged record gives none.
func TestRecordRewards(t *testing.T) {
	s := trainScorer(t, map[string][]string{
		"faculty":      {"professor research", "professor teaching"},
		"course":       {"homework lecture", "syllabus lecture"},
		classify.Other: {"weather today", "sports news"},
	})
	cv := func(th, faculty, course float64) training.ThresholdCV {
		return training.ThresholdCV{Threshold: th, Page: &classify.Evaluation{Topics: []classify.TopicScore{{Class: "faculty", F1: faculty}, {Class: "course", F1: course}}}}
	}
	rep := &training.Report{ByThreshold: []training.ThresholdCV{cv(0.3, 0.5, 0.8), cv(0.65, 0.9, 0.7), cv(0.42, 1, 1)}} // 0.42: not of the grid
	m := s.Model()
	RecordRewards(m, rep)
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := classify.Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := RecordedRewards(back, []string{"course", "faculty", "staff"}); !slices.Equal(got, []float64{0.3, 0.65, 0}) {
		t.Errorf("recorded rewards %v, want [0.3 0.65 0]", got)
	}
	back.SetMeta(MetaRewards, "course=1.5")
	if got := RecordedRewards(back, []string{"course"}); got != nil {
		t.Errorf("a damaged record gave %v", got)
	}
}

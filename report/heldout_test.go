package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// heldOutLabels labels a.com/c0 … c7 course (c0 and c1 are training
// examples) and a.com/o other.
func heldOutLabels() (Labels, []urlnorm.URL) {
	l := Labels{urlnorm.MustParse("http://a.com/o"): "other"}
	for i := range 8 {
		l[urlnorm.MustParse(fmt.Sprintf("http://a.com/c%d", i))] = "course"
	}
	learnt := []urlnorm.URL{urlnorm.MustParse("http://a.com/c0"), urlnorm.MustParse("http://a.com/c1"),
		urlnorm.MustParse("http://a.com/o"), urlnorm.MustParse("http://elsewhere.com/parent")}
	return l, learnt
}

func TestReport_Exclude(t *testing.T) {
	labels, learnt := heldOutLabels()
	crawl := []*crawler.Page{
		{URL: urlnorm.MustParse("http://a.com/c0")}, // a training example: costs a page, finds nothing
		{URL: urlnorm.MustParse("http://a.com/x"), Failure: "status: HTTP 404"},
		{URL: urlnorm.MustParse("http://a.com/c2")}, // held-out 1 of 6 at page 2, fetch 3
		{URL: urlnorm.MustParse("http://a.com/c1")}, // a training example
		{URL: urlnorm.MustParse("http://a.com/c3")}, // 2 of 6: 25 % (2 ≥ 1.5) at page 4, fetch 5
		{URL: urlnorm.MustParse("http://a.com/y"), Failure: "status: HTTP 404"},
		{URL: urlnorm.MustParse("http://a.com/o")},
		{URL: urlnorm.MustParse("http://a.com/c4")}, // 3 of 6: 50 % at page 6, fetch 8
		{URL: urlnorm.MustParse("http://a.com/c0")}, // the same example again
		{URL: urlnorm.MustParse("http://a.com/c5")}, // 4 of 6 (75 % needs 5)
	}
	run := func(exclude bool) *Report {
		r := New("x", "link", []string{"course"}, labels, 2)
		r.TargetScope = ScopeAllLabels
		r.Budgets = []int{2, 4, 8, 100}
		if exclude {
			r.Exclude(learnt)
		}
		for _, p := range crawl {
			if p.FinalURL.IsZero() {
				p.FinalURL = p.URL
			}
			r.Add(p)
		}
		r.Finish()
		return r
	}
	r, old := run(true), run(false)
	c, oc := r.Topic("course"), old.Topic("course")
	if !r.HeldOut || r.LearntFrom != 4 || r.Pages != 8 || r.Fetches != 10 {
		t.Errorf("held out %v, learnt from %d, pages %d, fetches %d; want true, 4, 8, 10", r.HeldOut, r.LearntFrom, r.Pages, r.Fetches)
	}
	if c.Targets != 6 || c.Found != 4 || c.Recall != 4.0/6 {
		t.Errorf("held-out: %d found of %d, recall %v; want 4 of 6 (the examples are no targets)", c.Found, c.Targets, c.Recall)
	}
	// The all-labels figures are those of a report without exclusion.
	if c.Relevant != 6 || c.TargetsAll != 8 || c.RecallAll != 6.0/8 || c.Relevant != oc.Relevant || c.RecallAll != oc.Recall || c.Precision != oc.Precision {
		t.Errorf("all labels: %d relevant of %d, recall %v, precision %v; want 6 of 8 and the figures without exclusion (%d, %v, %v)",
			c.Relevant, c.TargetsAll, c.RecallAll, c.Precision, oc.Relevant, oc.Recall, oc.Precision)
	}
	wantAt := []BudgetRecall{{2, 1, 1.0 / 6}, {4, 2, 2.0 / 6}, {8, 4, 4.0 / 6}}
	if fmt.Sprint(c.RecallAt) != fmt.Sprint(wantAt) {
		t.Errorf("recall at = %v, want %v (budgets beyond the crawl left out)", c.RecallAt, wantAt)
	}
	wantTo := []struct{ pages, fetches *int }{{ptr(4), ptr(5)}, {ptr(6), ptr(8)}, {nil, nil}}
	for i, w := range wantTo {
		m := c.PagesTo[i]
		if fmtInt(m.Pages) != fmtInt(w.pages) || fmtInt(m.Fetches) != fmtInt(w.fetches) {
			t.Errorf("pages to %.0f %% = %s (%s fetches), want %s (%s)", 100*m.Share, fmtInt(m.Pages), fmtInt(m.Fetches), fmtInt(w.pages), fmtInt(w.fetches))
		}
	}
	if last := c.Curve[len(c.Curve)-1]; last.Found != 4 || last.Relevant != 6 || last.Recall != 4.0/6 || last.RecallAll != 6.0/8 {
		t.Errorf("last curve point = %+v", last)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### course: 6 held-out targets (8 with the pages learnt from)",
		"| this crawl (link) | 4 (recall 0.667) | 0.167 | 0.333 | 0.667 | 4 (5) | 6 (8) | – |", "the 4 pages it learnt from"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func ptr(n int) *int { return &n }

func TestReport_Compare(t *testing.T) {
	labels, learnt := heldOutLabels()
	build := func(urls ...string) *Report {
		r := New("x", "link", []string{"course"}, labels, 100)
		r.TargetScope = ScopeAllLabels
		r.Exclude(learnt)
		for _, u := range urls {
			r.Add(&crawler.Page{URL: urlnorm.MustParse(u), FinalURL: urlnorm.MustParse(u)})
		}
		r.Finish()
		return r
	}
	// The crawl finds 3 of 6 (50 %) in 3 pages; breadth-first in 6 and
	// 5 of 6 (75 %) in 9; the crawl never gets to 75 %.
	r := build("http://a.com/c2", "http://a.com/c3", "http://a.com/c4")
	bfs := build("http://a.com/o", "http://a.com/c0", "http://a.com/c2", "http://a.com/c1", "http://a.com/c3", "http://a.com/c4", "http://a.com/x", "http://a.com/c5", "http://a.com/c6")
	bfs.Crawl = "bfs"
	r.Compare(bfs)
	c := r.Topic("course")
	if c.BFS == nil || c.BFS.Found != 5 || c.BFS.Targets != 6 || fmtInt(pagesTo(c.BFS.PagesTo, 0.75)) != "9" {
		t.Fatalf("bfs baseline = %+v", c.BFS)
	}
	if got := fmtRatio(c.SpeedUpAt(0.5)); got != "2.00×" {
		t.Errorf("speed-up at 50 %% = %s, want 2.00× (6 pages over 3)", got)
	}
	if c.SpeedUpAt(0.75) != nil {
		t.Errorf("speed-up at 75 %% = %v, want none: the crawl did not get there", *c.SpeedUpAt(0.75))
	}
}

func TestHeldOut(t *testing.T) {
	labels := Labels{
		urlnorm.MustParse("http://a.com/d/"): "course",
		urlnorm.MustParse("http://a.com/e"):  "course",
		urlnorm.MustParse("http://a.com/f"):  "course",
	}
	got := HeldOut(labels, []urlnorm.URL{urlnorm.MustParse("http://a.com/d/index.html"), urlnorm.MustParse("http://a.com/e"), urlnorm.MustParse("http://b.com/")})
	if len(got) != 1 || got[urlnorm.MustParse("http://a.com/f")] != "course" || len(labels) != 3 {
		t.Errorf("held out = %v (labels %v), want only a.com/f and the labels untouched", got, labels)
	}
}

func TestNeeded(t *testing.T) {
	tests := []struct {
		share float64
		total int
		want  int
	}{{0.25, 6, 2}, {0.5, 6, 3}, {0.75, 6, 5}, {0.75, 236, 177}, {0.75, 145, 109}, {0.25, 1, 1}, {0.5, 0, 1}}
	for _, tt := range tests {
		if got := Needed(tt.share, tt.total); got != tt.want {
			t.Errorf("Needed(%v, %d) = %d, want %d", tt.share, tt.total, got, tt.want)
		}
	}
}

// TestReport_WriteMarkdown_noTargets: a topic without held-out targets
// is said to have none, and why, not left out of the section.
func TestReport_WriteMarkdown_noTargets(t *testing.T) {
	labels, learnt := heldOutLabels()
	for _, tc := range []struct {
		name   string
		scope  string
		learnt []urlnorm.URL
		pages  []string
		want   string
	}{
		{"other hosts", ScopeCrawledHosts, learnt, []string{"http://b.com/", "http://b.com/x"},
			"### course: no held-out targets\n\nNo page of the topic is labelled on the hosts the crawl fetched from"},
		{"all learnt", ScopeAllLabels, append(learnt, urlnorm.MustParse("http://a.com/c2"), urlnorm.MustParse("http://a.com/c3"),
			urlnorm.MustParse("http://a.com/c4"), urlnorm.MustParse("http://a.com/c5"), urlnorm.MustParse("http://a.com/c6"), urlnorm.MustParse("http://a.com/c7")),
			[]string{"http://a.com/c0"}, "### course: no held-out targets\n\nThe 8 labelled pages of the topic in the labels are all pages the model learnt from"},
	} {
		r := New("x", "link", []string{"course"}, labels, 100)
		r.TargetScope = tc.scope
		r.Exclude(tc.learnt)
		for _, u := range tc.pages {
			r.Add(&crawler.Page{URL: urlnorm.MustParse(u), FinalURL: urlnorm.MustParse(u)})
		}
		r.Finish()
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), tc.want) {
			t.Errorf("%s: markdown lacks %q:\n%s", tc.name, tc.want, md.String())
		}
	}
}

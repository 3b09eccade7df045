package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestReadLabels(t *testing.T) {
	l, err := ReadLabels(strings.NewReader("# comment\nHTTP://A.com/x\tcourse\n\nhttp://a.com/y\tother\textra\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l[urlnorm.MustParse("http://a.com/x")] != "course" || l[urlnorm.MustParse("http://a.com/y")] != "other" {
		t.Errorf("labels = %v", l)
	}
	for _, bad := range []string{"http://a.com/x course\n", "ftp://x\tcourse\n"} {
		if _, err := ReadLabels(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadLabels(%q) gave no error", bad)
		}
	}
}

func TestReport_Add(t *testing.T) {
	labels := Labels{
		urlnorm.MustParse("http://a.com/c1"): "course",
		urlnorm.MustParse("http://a.com/c2"): "course",
		urlnorm.MustParse("http://a.com/c3"): "course",
		urlnorm.MustParse("http://a.com/o1"): "other",
		urlnorm.MustParse("http://b.com/c9"): "course", // host never crawled
	}
	r := New("x", "link", []string{"course"}, labels, 2)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/c1"), FinalURL: urlnorm.MustParse("http://a.com/c1"), Topic: "course", Relevant: map[string]bool{"course": true}})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/o1"), FinalURL: urlnorm.MustParse("http://a.com/o1"), Topic: "course"})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/c2x"), FinalURL: urlnorm.MustParse("http://a.com/c2"), Topic: "course"}) // redirect to a labelled page
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/c1/"), FinalURL: urlnorm.MustParse("http://a.com/c1"), Topic: "course"}) // the same page again
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/dead"), FinalURL: urlnorm.MustParse("http://a.com/dead"), Topic: "course", Failure: "status: HTTP 404"})
	r.Finish()
	c := r.Topic("course")
	if r.Pages != 4 || r.Failed != 1 {
		t.Errorf("pages %d failed %d, want 4 and 1 (failed fetches counted apart)", r.Pages, r.Failed)
	}
	if c.Relevant != 2 || c.FromStack != 4 || c.ByClassifier != 1 || c.Targets != 3 {
		t.Fatalf("stats = %+v, want 2 relevant of 4, 1 by classifier, 3 targets on crawled hosts", c)
	}
	if c.Precision != 0.5 || c.Recall != 2.0/3 || c.Harvest != 0.5 {
		t.Errorf("precision %v recall %v harvest %v", c.Precision, c.Recall, c.Harvest)
	}
	want := []Point{{Pages: 2, Relevant: 1, Rate: 0.5, Found: 1, Recall: 1.0 / 3, RecallAll: 1.0 / 3}, {Pages: 4, Relevant: 2, Rate: 0.5, Found: 2, Recall: 2.0 / 3, RecallAll: 2.0 / 3}}
	if len(c.Curve) != len(want) {
		t.Fatalf("curve = %+v", c.Curve)
	}
	for i := range want {
		if c.Curve[i] != want[i] {
			t.Errorf("curve[%d] = %+v, want %+v", i, c.Curve[i], want[i])
		}
	}
	r2 := New("x", "link", []string{"course"}, labels, 2)
	r2.TargetScope = ScopeAllLabels
	r2.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/c1"), FinalURL: urlnorm.MustParse("http://a.com/c1")})
	r2.Finish()
	if got := r2.Topic("course").Targets; got != 4 {
		t.Errorf("all-labels targets = %d, want 4", got)
	}
}

func TestReport_withoutLabelsIsEstimated(t *testing.T) {
	r := New("x", "link", []string{"course"}, nil, 2)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/1"), Relevant: map[string]bool{"course": true}})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/2"), Relevant: map[string]bool{"course": false}})
	r.Finish()
	c := r.Topic("course")
	if !c.Estimated || c.Relevant != 1 || c.Harvest != 0.5 {
		t.Errorf("stats = %+v", c)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "estimated by the page classifier") {
		t.Errorf("markdown does not say relevance is estimated:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "| 2 | 1 | 0.500 | 1 | – | – |") {
		t.Errorf("markdown curve should show no recall without labels:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"estimated": true`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}
}

// TestReport_Add_indexAliases finds a labelled directory fetched under its
// index page and a labelled index page fetched as its directory, counts a
// page reached under both once, and leaves a directory whose two forms are
// labelled apart to their own URLs.
func TestReport_Add_indexAliases(t *testing.T) {
	labels := Labels{
		urlnorm.MustParse("http://a.com/c1/"):             "course",
		urlnorm.MustParse("http://a.com/c2/index.htm"):    "course",
		urlnorm.MustParse("http://a.com/c3/"):             "course",
		urlnorm.MustParse("http://a.com/both/"):           "course",
		urlnorm.MustParse("http://a.com/both/index.html"): "other",
	}
	r := New("x", "link", []string{"course"}, labels, 100)
	for _, u := range []string{
		"http://a.com/c1/index.html",  // the labelled directory
		"http://a.com/c1/",            // the same page again
		"http://a.com/c2/",            // the labelled index page
		"http://a.com/c3/INDEX.HTM",   // index names in any case
		"http://a.com/both/index.htm", // ambiguous: neither
		"http://a.com/both/index.html",
	} {
		r.Add(&crawler.Page{URL: urlnorm.MustParse(u), FinalURL: urlnorm.MustParse(u), Topic: "course"})
	}
	r.Finish()
	if c := r.Topic("course"); c.Relevant != 3 || c.Targets != 4 {
		t.Errorf("relevant %d of %d targets, want 3 of 4", c.Relevant, c.Targets)
	}
}

func TestReport_Add_duplicates(t *testing.T) {
	r := New("x", "link", []string{"course", "faculty"}, nil, 100)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/1"), Topic: "course"})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/2"), Topic: "course", DuplicateOf: urlnorm.MustParse("http://a.com/1")})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/3"), Topic: "faculty", DuplicateOf: urlnorm.MustParse("http://a.com/1")})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/4"), Topic: "faculty", Failure: "status: HTTP 404"})
	r.Finish()
	tests := []struct {
		topic             string
		unique, duplicate int
	}{{"course", 1, 1}, {"faculty", 0, 1}}
	for _, tt := range tests {
		if c := r.Topic(tt.topic); c.Unique != tt.unique || c.Duplicates != tt.duplicate {
			t.Errorf("%s: unique %d duplicates %d, want %d and %d", tt.topic, c.Unique, c.Duplicates, tt.unique, tt.duplicate)
		}
	}
	if r.Duplicates != 2 || r.Pages != 3 {
		t.Errorf("report: %d duplicates of %d pages, want 2 of 3", r.Duplicates, r.Pages)
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| course | 2 | 1 | 1 |") || !strings.Contains(md.String(), "2 of them near-duplicates") {
		t.Errorf("markdown lacks the duplicate counts:\n%s", md.String())
	}
	if err := r.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"unique": 0,`) || !strings.Contains(js.String(), `"duplicates": 2,`) {
		t.Errorf("json: %v\n%s", err, js.String())
	}
}

func TestReport_Finish_twiceKeepsTheNumbers(t *testing.T) {
	labels := Labels{urlnorm.MustParse("http://a.com/c1"): "course", urlnorm.MustParse("http://a.com/c2"): "course"}
	r := New("x", "link", []string{"course"}, labels, 100)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.com/c1"), FinalURL: urlnorm.MustParse("http://a.com/c1")})
	r.Finish()
	r.Finish()
	if c := r.Topic("course"); c.Targets != 2 || c.Recall != 0.5 {
		t.Errorf("after a second Finish: targets %d, recall %v; want 2, 0.5", c.Targets, c.Recall)
	}
	if r.labels != nil || r.seen != nil {
		t.Error("a finished report still holds its labels and URL set")
	}
}

// TestReport_Add_precisionPerStack: with two topics, a topic's precision
// is over the pages fetched for it, not over every relevant page of the
// crawl. Course's stack gives c1 (course) and o1 (other), faculty's gives
// c2 and c3 (course) and f1 (faculty), and the seed s (other) counts for
// both: course has 3 pages, 1 relevant, precision 1/3 (not 3/3); faculty
// has 4 pages, 1 relevant, precision 1/4. Harvest is over all 6 pages:
// course 3/6, faculty 1/6.
func TestReport_Add_precisionPerStack(t *testing.T) {
	labels := Labels{
		urlnorm.MustParse("http://a.com/c1"): "course",
		urlnorm.MustParse("http://a.com/c2"): "course",
		urlnorm.MustParse("http://a.com/c3"): "course",
		urlnorm.MustParse("http://a.com/f1"): "faculty",
		urlnorm.MustParse("http://a.com/o1"): "other",
		urlnorm.MustParse("http://a.com/s"):  "other",
	}
	r := New("x", "link", []string{"course", "faculty"}, labels, 100)
	for _, p := range []struct{ url, topic string }{
		{"http://a.com/s", ""},
		{"http://a.com/c1", "course"},
		{"http://a.com/c2", "faculty"},
		{"http://a.com/o1", "course"},
		{"http://a.com/c3", "faculty"},
		{"http://a.com/f1", "faculty"},
	} {
		u := urlnorm.MustParse(p.url)
		r.Add(&crawler.Page{URL: u, FinalURL: u, Topic: p.topic})
	}
	r.Finish()
	for _, want := range []struct {
		topic                    string
		fromStack, relevant, own int
		precision, harvest       float64
	}{
		{"course", 3, 3, 1, 1.0 / 3, 3.0 / 6},
		{"faculty", 4, 1, 1, 1.0 / 4, 1.0 / 6},
	} {
		c := r.Topic(want.topic)
		if c.FromStack != want.fromStack || c.Relevant != want.relevant || c.OwnRelevant != want.own ||
			c.Precision != want.precision || c.Harvest != want.harvest {
			t.Errorf("%s: from stack %d, relevant %d (%d from its stack), precision %v, harvest %v; want %d, %d (%d), %v, %v",
				want.topic, c.FromStack, c.Relevant, c.OwnRelevant, c.Precision, c.Harvest,
				want.fromStack, want.relevant, want.own, want.precision, want.harvest)
		}
	}
}

// TestReport_WriteMarkdown_rates: a report read from a store says that
// its rates run from the first fetch to the last; a crawl's own report
// does not.
func TestReport_WriteMarkdown_rates(t *testing.T) {
	for _, byFetchTimes := range []bool{false, true} {
		r := &Report{Crawl: "c", Strategy: "link", Pages: 10, Fetches: 20, PagesPerSecond: 5, FetchesPerSecond: 10, RatesByFetchTimes: byFetchTimes}
		var b bytes.Buffer
		if err := r.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(b.String(), "5.0 pages/s (10.0 fetches/s) from its first fetch to its last (pauses between runs included)")
		if said != byFetchTimes || !strings.Contains(b.String(), "5.0 pages/s (10.0 fetches/s)") {
			t.Errorf("rates by fetch times %v:\n%s", byFetchTimes, b.String())
		}
	}
}

// TestReport_WriteMarkdown_noPages: a crawl that fetched no page (its
// seeds failed) has no precision or harvest rate ("–", not 0.000) and no
// harvest curve, said so rather than an empty table.
func TestReport_WriteMarkdown_noPages(t *testing.T) {
	r := New("x", "link", []string{"course"}, nil, 100)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.test/"), FinalURL: urlnorm.MustParse("http://a.test/"), Topic: "course", Failure: "fetch: connection refused"})
	r.Finish()
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| course | 0 | 0 | 0 | 0 | 0 | 0 | – | – | – |", "## Harvest curve: course\n\nNo point: the crawl fetched no page.\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| pages | relevant | harvest rate |") {
		t.Errorf("an empty harvest table:\n%s", md.String())
	}
}

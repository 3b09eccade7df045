package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// fakeReport builds a labelled report over two topics: every step-th page
// is a course page, every other page a faculty page.
func fakeReport(crawl, strategy string, step int) *Report {
	labels := make(Labels)
	for i := 0; i < 60; i++ {
		l := "faculty"
		if i%step == 0 {
			l = "course"
		}
		labels[urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i))] = l
	}
	r := New(crawl, strategy, []string{"course", "faculty"}, labels, 10)
	for i := 0; i < 50; i++ {
		r.Add(&crawler.Page{URL: urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i)), FinalURL: urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i)), Topic: "course"})
	}
	r.AddLink(pageLink("http://a.test/0", 0.9, 0.1))
	r.AddLink(pageLink("http://a.test/1", 0.8, 0.5))
	r.Finish()
	return r
}

// htmlNodes returns the element nodes of doc for which keep is true.
func htmlNodes(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for _, t := range htmlNodes(n, func(*html.Node) bool { return true }) {
		for c := t.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// checkCharts checks that doc has, per topic, a harvest and a recall chart
// drawn as SVG with lines and a legend naming every report.
func checkCharts(t *testing.T, doc *html.Node, topics, legend []string) {
	t.Helper()
	sections := htmlNodes(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "topic" })
	if len(sections) != len(topics) {
		t.Fatalf("%d topic sections, want %d", len(sections), len(topics))
	}
	for i, sec := range sections {
		if got := attr(sec, "data-topic"); got != topics[i] {
			t.Errorf("section %d is for %q, want %q", i, got, topics[i])
		}
		figs := htmlNodes(sec, func(n *html.Node) bool { return n.Data == "figure" })
		var kinds []string
		for _, f := range figs {
			kinds = append(kinds, attr(f, "data-chart"))
			svgs := htmlNodes(f, func(n *html.Node) bool { return n.Data == "svg" })
			if len(svgs) != 1 {
				t.Errorf("%s %s chart: %d svg elements, want 1", topics[i], attr(f, "data-chart"), len(svgs))
				continue
			}
			// Axes, ticks, grid and one path per line and legend entry.
			paths := htmlNodes(svgs[0], func(n *html.Node) bool { return n.Data == "path" || n.Data == "polyline" })
			if len(paths) < 2*len(legend) {
				t.Errorf("%s %s chart: %d paths, want at least %d", topics[i], attr(f, "data-chart"), len(paths), 2*len(legend))
			}
			text := textOf(svgs[0])
			for _, name := range legend {
				if !strings.Contains(text, name) {
					t.Errorf("%s %s chart: legend lacks %q:\n%s", topics[i], attr(f, "data-chart"), name, text)
				}
			}
		}
		if strings.Join(kinds, ",") != ChartHarvest+","+ChartRecall {
			t.Errorf("%s charts = %v, want harvest and recall", topics[i], kinds)
		}
	}
}

func TestWriteHTML(t *testing.T) {
	a, b := fakeReport("a", "link", 2), fakeReport("b", "bfs", 5)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	checkCharts(t, doc, []string{"course", "faculty"}, []string{"a (link)", "b (bfs)"})
	for _, tag := range []string{"script", "link", "img", "iframe"} {
		if n := htmlNodes(doc, func(n *html.Node) bool { return n.Data == tag }); len(n) > 0 {
			t.Errorf("page has %d <%s> elements; it must be self-contained", len(n), tag)
		}
	}
	rows := htmlNodes(doc, func(n *html.Node) bool {
		return n.Data == "tr" && n.Parent.Data == "tbody" && attr(n.Parent.Parent, "id") == "summary"
	})
	if len(rows) != 4 {
		t.Errorf("summary has %d rows, want 4 (2 crawls × 2 topics)", len(rows))
	}
	// Crawl a finds 25 of 30 course pages; b finds 10 of 12.
	if s := buf.String(); !strings.Contains(s, "<td class=\"n\">25</td><td class=\"n\">30</td><td class=\"n\">0.500</td><td class=\"n\">0.833</td>") {
		t.Errorf("summary lacks a's course row (25 relevant of 30 targets, precision 0.5, recall 0.833)")
	}
	links := htmlNodes(doc, func(n *html.Node) bool {
		return n.Data == "tr" && n.Parent.Data == "tbody" && attr(n.Parent.Parent, "id") == "links"
	})
	if len(links) != 4 {
		t.Errorf("link table has %d rows, want 4", len(links))
	}
}

func TestWriteHTML_unlabelled(t *testing.T) {
	r := New("u", "page", []string{"course"}, nil, 1)
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.test/1"), Relevant: map[string]bool{"course": true}})
	r.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.test/2")})
	r.Finish()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if strings.Count(s, "<svg") != 1 || !strings.Contains(s, "No recall chart for course") || !strings.Contains(s, "estimated by the page classifier") {
		t.Errorf("unlabelled report: want one harvest chart, a note instead of the recall chart, and the estimate warning:\n%s", s)
	}
	if err := WriteHTML(&buf); err == nil {
		t.Error("WriteHTML of no reports gave no error")
	}
}

func TestWriteHTML_chromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH: the page is not checked in a real browser")
	}
	if testing.Short() {
		t.Skip("loading the page in chromium is skipped in short mode")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fakeReport("a", "link", 2), fakeReport("b", "bfs", 5)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	checkCharts(t, doc, []string{"course", "faculty"}, []string{"a (link)", "b (bfs)"})
}

func TestWriteCSV(t *testing.T) {
	a := fakeReport("a", "link", 2)
	u := New("u", "page", []string{"course"}, nil, 1)
	u.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.test/1"), Relevant: map[string]bool{"course": true}})
	u.Finish()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, a, u); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// a: 5 points per topic; u: 1 point.
	if len(recs) != 1+10+1 {
		t.Fatalf("%d records, want 12:\n%v", len(recs), recs)
	}
	want := [][]string{
		{"crawl", "strategy", "topic", "pages", "found", "recall", "relevant", "harvest_rate", "recall_all_labels", "estimated"},
		{"a", "link", "course", "10", "5", "0.1667", "5", "0.5000", "0.1667", "false"},
	}
	for i, w := range want {
		if strings.Join(recs[i], ",") != strings.Join(w, ",") {
			t.Errorf("record %d = %v, want %v", i, recs[i], w)
		}
	}
	if got := strings.Join(recs[11], ","); got != "u,page,course,1,1,,1,1.0000,,true" {
		t.Errorf("unlabelled record = %s, want an empty recall and estimated", got)
	}
}

func TestReport_AddLink(t *testing.T) {
	labels := Labels{
		urlnorm.MustParse("http://a.test/c1"): "course",
		urlnorm.MustParse("http://a.test/c2"): "course",
		urlnorm.MustParse("http://a.test/f1"): "faculty",
		urlnorm.MustParse("http://a.test/o1"): "other",
	}
	r := New("x", "link", []string{"course", "faculty"}, labels, 10)
	r.Topic("faculty").Threshold = 0.5
	for _, l := range []*crawler.PageLink{
		pageLink("http://a.test/c1", 0.9, 0.2),  // course TP
		pageLink("http://a.test/c2", 0.5, 0.6),  // course FN, faculty FP
		pageLink("http://a.test/f1", 0.76, 0.5), // course FP (at threshold), faculty TP
		pageLink("http://a.test/o1", 0.1, 0.1),  // TN, TN
		pageLink("http://a.test/unlabelled", 0.99, 0.99),
		pageLink("http://a.test/c1"), // not scored
	} {
		r.AddLink(l)
	}
	r.Finish()
	tests := []struct {
		topic string
		want  LinkStats
	}{
		{"course", LinkStats{Threshold: 0.76, Scored: 5, Labelled: 4, TruePos: 1, FalsePos: 1, FalseNeg: 1, TrueNeg: 1, Precision: 0.5, Recall: 0.5, F1: 0.5}},
		{"faculty", LinkStats{Threshold: 0.5, Scored: 5, Labelled: 4, TruePos: 1, FalsePos: 1, FalseNeg: 0, TrueNeg: 2, Precision: 0.5, Recall: 1, F1: 2.0 / 3}},
	}
	for _, tt := range tests {
		got := r.Topic(tt.topic).Links
		if got == nil || *got != tt.want {
			t.Errorf("%s: link stats = %+v, want %+v", tt.topic, got, tt.want)
		}
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| course | 0.76 | 5 | 4 | 1 | 1 | 1 | 0.500 | 0.500 | 0.500 |") {
		t.Errorf("markdown lacks the link-classifier row:\n%s", md.String())
	}
	if err := r.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"link_classifier": {`) || !strings.Contains(js.String(), `"true_positives": 1,`) {
		t.Errorf("json lacks the link classifier: %v\n%s", err, js.String())
	}
	u := New("x", "link", []string{"course"}, nil, 10)
	u.AddLink(pageLink("http://a.test/c1", 0.9, 0.1))
	u.Finish()
	if u.Topic("course").Links != nil {
		t.Error("a report without labels evaluated the link classifier")
	}
}

func BenchmarkWriteHTML(b *testing.B) {
	x, y := fakeReport("a", "link", 2), fakeReport("b", "bfs", 5)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteHTML(&buf, x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// pageLink is a stored link to target of a crawl of the topics course and
// faculty, with scores in that order (none: not scored).
func pageLink(target string, scores ...float64) *crawler.PageLink {
	return &crawler.PageLink{Link: crawler.Link{Target: urlnorm.MustParse(target), Scores: scores}, Topics: []string{"course", "faculty"}}
}

// TestWriteHTML_emptyCrawl: the harvest chart of a crawl that fetched
// no page, or no relevant one, has axes from 0, no negative tick.
func TestWriteHTML_emptyCrawl(t *testing.T) {
	empty := New("e", "link", []string{"course"}, nil, 100)
	empty.Finish()
	none := New("n", "link", []string{"course"}, nil, 100)
	none.Add(&crawler.Page{URL: urlnorm.MustParse("http://a.test/1")})
	none.Finish()
	for _, r := range []*Report{empty, none} {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, r); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		svgs := htmlNodes(doc, func(n *html.Node) bool { return n.Data == "svg" })
		if len(svgs) != 1 {
			t.Fatalf("%s: %d charts, want the harvest chart", r.Crawl, len(svgs))
		}
		for _, n := range htmlNodes(svgs[0], func(n *html.Node) bool { return n.Data == "text" }) {
			if s := strings.TrimSpace(textOf(n)); strings.HasPrefix(s, "-") {
				t.Errorf("%s: the harvest chart has the tick %q", r.Crawl, s)
			}
		}
	}
}

package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/scent-crawler/scent/crawler"
	"github.com/scent-crawler/scent/urlnorm"
)

// fakeCellReport is a labelled report over topic where every step-th of
// 60 labelled pages is relevant; the crawl fetches n of them.
func fakeCellReport(name, strategy, topic string, step, n int) *Report {
	labels := make(Labels)
	for i := 0; i < 60; i++ {
		l := "other"
		if i%step == 0 {
			l = topic
		}
		labels[urlnorm.MustParse(fmt.Sprintf("http://a.test/%d", i))] = l
	}
	r := New(name, strategy, []string{topic}, labels, 10)
	r.TargetScope = ScopeAllLabels
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("http://a.test/%d", i)
		r.Add(&crawler.Page{URL: urlnorm.MustParse(u), FinalURL: urlnorm.MustParse(u), Topic: topic})
	}
	r.Finish()
	return r
}

// fakeGrid builds a grid over topic course: bfs, and link and page with
// a stack frontier at K ∈ {50, 1000} and n ∈ {5, 10}. Recall grows with K
// for link (steps of the labels), and page finds less.
func fakeGrid() *Grid {
	g := &Grid{Command: "scent experiment x --out y", Budget: 50, Seconds: 12}
	g.Cells = append(g.Cells, &GridCell{Name: "course-bfs", Topics: []string{"course"}, Strategy: "bfs",
		Report: fakeCellReport("course-bfs", "bfs", "course", 3, 30)})
	for _, s := range []string{"link", "page"} {
		for _, k := range []int{50, 1000} {
			for _, n := range []int{5, 10} {
				name := fmt.Sprintf("course-%s-stack-k%d-n%d-t0.76", s, k, n)
				fetched := 20 + k/50 // 21 or 40 pages
				if s == "page" {
					fetched = 10
				}
				c := &GridCell{Name: name, Topics: []string{"course"}, Strategy: s, Frontier: "stack", K: k, Window: n, Threshold: 0.76,
					Seconds: 1.5, Report: fakeCellReport(name, s, "course", 2, fetched),
					Training: []TrainingScore{{Topic: "course", Folds: 5, Documents: 40,
						Page:    &PR{Precision: 0.5 + float64(k)/4000, Recall: 0.6, Support: 40},
						Segment: &PR{Precision: 0.3, Recall: 0.4 + float64(n)/100, Support: 12}}}}
				g.Cells = append(g.Cells, c)
			}
		}
	}
	return g
}

func TestDefaults(t *testing.T) {
	cell := func(k, n int, th float64) *GridCell { return &GridCell{K: k, Window: n, Threshold: th} }
	tests := []struct {
		name  string
		cells []*GridCell
		want  GridDefaults
	}{
		{"listed", []*GridCell{cell(50, 5, 0.5), cell(1000, 10, 0.76), cell(5000, 20, 0.9)}, GridDefaults{1000, 10, 0.76}},
		{"nearest", []*GridCell{cell(50, 5, 0.5), cell(300, 20, 0.9)}, GridDefaults{300, 5, 0.9}},
		{"tie takes the smaller", []*GridCell{cell(500, 5, 0.7), cell(1500, 15, 0.82)}, GridDefaults{500, 5, 0.7}},
		{"bfs ignored", []*GridCell{{Strategy: "bfs"}, cell(200, 8, 0.6)}, GridDefaults{200, 8, 0.6}},
		{"none", []*GridCell{{Strategy: "bfs"}}, GridDefaults{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Defaults(tt.cells); got != tt.want {
				t.Errorf("Defaults = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestGrid_Sections(t *testing.T) {
	g := &Grid{Cells: []*GridCell{
		{Name: "a", Topics: []string{"course"}},
		{Name: "b", Topics: []string{"course", "faculty"}},
		{Name: "c", Topics: []string{"course"}},
	}}
	got := g.Sections()
	var titles []string
	for _, s := range got {
		var names []string
		for _, c := range s.Cells {
			names = append(names, c.Name)
		}
		titles = append(titles, s.Title()+":"+strings.Join(names, ","))
	}
	want := "course:a,c|course (crawled as course+faculty):b|faculty (crawled as course+faculty):b"
	if s := strings.Join(titles, "|"); s != want {
		t.Errorf("sections = %s, want %s", s, want)
	}
}

func TestGrid_WriteHTML(t *testing.T) {
	g := fakeGrid()
	var buf bytes.Buffer
	if err := g.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	sections := htmlNodes(doc, func(n *html.Node) bool { return n.Data == "section" })
	if len(sections) != 1 || attr(sections[0], "data-topic") != "course" {
		t.Fatalf("want one section for course, got %d", len(sections))
	}
	legends := map[string][]string{
		ChartGridHarvest:      {"bfs", "link stack", "page stack"},
		ChartGridRecallK:      {"bfs", "link stack", "page stack"},
		ChartGridClassifierK:  {"page precision", "page recall", "segment precision", "segment recall"},
		ChartGridRecallWindow: {"bfs", "link stack", "page stack"},
	}
	var kinds []string
	for _, f := range htmlNodes(sections[0], func(n *html.Node) bool { return n.Data == "figure" }) {
		kind := attr(f, "data-chart")
		kinds = append(kinds, kind)
		svgs := htmlNodes(f, func(n *html.Node) bool { return n.Data == "svg" })
		if len(svgs) != 1 {
			t.Errorf("%s: %d svg elements, want 1", kind, len(svgs))
			continue
		}
		paths := htmlNodes(svgs[0], func(n *html.Node) bool { return n.Data == "path" })
		if len(paths) < 2*len(legends[kind]) {
			t.Errorf("%s: %d paths, want at least %d", kind, len(paths), 2*len(legends[kind]))
		}
		text := textOf(svgs[0])
		for _, name := range legends[kind] {
			if !strings.Contains(text, name) {
				t.Errorf("%s: legend lacks %q:\n%s", kind, name, text)
			}
		}
		// The K axis is ticked at the listed values.
		if kind == ChartGridRecallK && (!strings.Contains(text, "50\n") || !strings.Contains(text, "1000\n")) {
			t.Errorf("%s: ticks lack 50 and 1000:\n%s", kind, text)
		}
	}
	want := []string{ChartGridHarvest, ChartGridRecallK, ChartGridClassifierK, ChartGridRecallWindow}
	if strings.Join(kinds, ",") != strings.Join(want, ",") {
		t.Errorf("charts = %v, want %v", kinds, want)
	}
	rows := htmlNodes(doc, func(n *html.Node) bool { return n.Data == "tr" && n.Parent.Data == "tbody" })
	if len(rows) != len(g.Cells) {
		t.Errorf("table has %d rows, want %d", len(rows), len(g.Cells))
	}
	for _, tag := range []string{"script", "link", "img"} {
		if n := htmlNodes(doc, func(n *html.Node) bool { return n.Data == tag }); len(n) > 0 {
			t.Errorf("page has <%s>: it must be self-contained", tag)
		}
	}
}

func TestGrid_WriteHTML_oneK(t *testing.T) {
	g := &Grid{Cells: []*GridCell{{Name: "c", Topics: []string{"course"}, Strategy: "link", Frontier: "stack", K: 1000, Window: 10, Threshold: 0.76,
		Report: fakeCellReport("c", "link", "course", 2, 30)}}}
	var buf bytes.Buffer
	if err := g.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if strings.Count(s, "<svg") != 1 || !strings.Contains(s, "the grid has one K") || !strings.Contains(s, "one window n") {
		t.Errorf("one K and one n: want the harvest chart only, with notes:\n%s", s)
	}
}

func TestGrid_WriteCSV(t *testing.T) {
	g := fakeGrid()
	var buf bytes.Buffer
	if err := g.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(g.Cells) {
		t.Fatalf("%d records, want %d", len(recs), 1+len(g.Cells))
	}
	col := make(map[string]int)
	for i, h := range recs[0] {
		col[h] = i
	}
	bfs := recs[1]
	// bfs fetched 30 of 60 pages, every 3rd labelled course: 10 of 20.
	if bfs[col["cell"]] != "course-bfs" || bfs[col["k"]] != "" || bfs[col["relevant"]] != "10" || bfs[col["recall"]] != "0.500" || bfs[col["page_precision"]] != "" {
		t.Errorf("bfs row = %v", bfs)
	}
	link := recs[2]
	// link at K 50 fetched 21 pages, 11 of the 30 course pages.
	if link[col["k"]] != "50" || link[col["window"]] != "5" || link[col["relevant"]] != "11" || link[col["recall"]] != "0.367" ||
		link[col["page_precision"]] != "0.512" || link[col["segment_recall"]] != "0.450" {
		t.Errorf("link row = %v", link)
	}
}

func TestGrid_WriteMarkdown(t *testing.T) {
	g := fakeGrid()
	var buf bytes.Buffer
	if err := g.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	// The best course recall: link at K 1000 fetched 40 pages, 20 of 30.
	if !strings.Contains(s, "| course | course-link-stack-k1000-n5-t0.76 | 0.667 | 30 | 40 |") {
		t.Errorf("markdown lacks the best-recall row:\n%s", s)
	}
	if n := strings.Count(s, "\n| course-"); n != len(g.Cells) {
		t.Errorf("markdown table has %d cell rows, want %d", n, len(g.Cells))
	}
}

func TestGrid_WriteJSON(t *testing.T) {
	g := fakeGrid()
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Budget int `json:"budget"`
		Cells  []struct {
			Name     string `json:"name"`
			K        int    `json:"k"`
			Training []struct {
				Page *PR `json:"page_cv"`
			} `json:"training"`
			Report struct {
				Pages int `json:"pages"`
			} `json:"report"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Budget != 50 || len(back.Cells) != len(g.Cells) {
		t.Fatalf("budget %d, %d cells", back.Budget, len(back.Cells))
	}
	if c := back.Cells[2]; c.Name != "course-link-stack-k50-n10-t0.76" || c.K != 50 || c.Report.Pages != 21 || len(c.Training) != 1 || c.Training[0].Page.Precision != 0.5125 {
		t.Errorf("cell 2 = %+v", c)
	}
}

func BenchmarkGrid_WriteHTML(b *testing.B) {
	g := fakeGrid()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := g.WriteHTML(&buf); err != nil {
			b.Fatal(err)
		}
	}
}

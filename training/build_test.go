package training

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/fetch"
	"github.com/scent-crawler/scent/segment"
	"github.com/scent-crawler/scent/urlnorm"
)

// Words of the test site. Each class has its own words; filler words are
// on every page.
var (
	classWords = map[string][]string{
		"course":  {"syllabus", "homework", "lecture", "exam", "assignment", "instructor"},
		"faculty": {"professor", "research", "publications", "phd", "advisor", "laboratory"},
		"other":   {"weather", "football", "recipe", "election", "concert", "market"},
	}
	fillerWords = []string{"university", "page", "information", "welcome", "contact", "people"}
)

// site is a small web site of example pages. Every page links to the next
// page of its class, to one page of another class (cross) and to a page
// that is no example (/about.html), so each page has two links to
// examples. Anchors of links to examples are two words of the target's
// class; the about link's anchor is "home".
type site struct {
	pages map[string]string // path → HTML
	paths map[string][]string
}

// siteSize is the number of pages of each class and siteTokens the number
// of tokens on each of them (anchors included, title excluded): windows
// of 23 tokens give 60 → 23+23+14 (3 windows), 48 → 23+23+2 (the short
// tail dropped: 2 windows), 35 → 23+12 (2 windows).
var (
	siteSize   = map[string]int{"course": 12, "faculty": 10, "other": 12}
	siteTokens = map[string]int{"course": 60, "faculty": 48, "other": 35}
	siteCross  = map[string]string{"course": "other", "faculty": "course", "other": "faculty"}
	siteOrder  = []string{"course", "faculty", "other"}
)

func newSite() *site {
	s := &site{pages: make(map[string]string), paths: make(map[string][]string)}
	for _, c := range siteOrder {
		for i := range siteSize[c] {
			s.paths[c] = append(s.paths[c], fmt.Sprintf("/%s/%02d.html", c, i))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range siteOrder {
		for i, p := range s.paths[c] {
			next := s.paths[c][(i+1)%len(s.paths[c])]
			x := siteCross[c]
			cross := s.paths[x][i%len(s.paths[x])]
			s.pages[p] = pageHTML(r, c, siteTokens[c], []string{next, cross, "/about.html"}, []string{c, x, ""})
		}
	}
	return s
}

// pageHTML writes a page of class with exactly n tokens whose links go to
// targets, each with an anchor of two words of its class (or "home").
func pageHTML(r *rand.Rand, class string, n int, targets, classes []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>Title words %s</title></head><body><p>", class)
	body := n - 5
	at := []int{body / 4, body / 2, 3 * body / 4}
	word := func(words []string) string { return words[r.IntN(len(words))] }
	for k := range body {
		for li, pos := range at {
			if pos == k {
				anchor := "home"
				if classes[li] != "" {
					anchor = word(classWords[classes[li]]) + " " + word(classWords[classes[li]])
				}
				fmt.Fprintf(&b, "<a href=%q>%s</a> ", targets[li], anchor)
			}
		}
		if r.IntN(10) < 7 {
			b.WriteString(word(classWords[class]))
		} else {
			b.WriteString(word(fillerWords))
		}
		b.WriteByte(' ')
	}
	b.WriteString("</p></body></html>\n")
	return b.String()
}

// serve starts the site; every path it does not know is a 404.
func (s *site) serve(t testing.TB) *httptest.Server {
	t.Helper()
	pages := make(map[string]string, len(s.pages)+2)
	for p, h := range s.pages {
		pages[p] = h
	}
	pages["/about.html"] = "<html><body><p>about this site</p></body></html>"
	pages["/empty.html"] = "<html><body><img src=x.png></body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, h)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// seedFile lists every page of the site as an example of its class.
func (s *site) seedFile(base string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %s/\n", base)
	for _, c := range siteOrder {
		for _, p := range s.paths[c] {
			fmt.Fprintf(&b, "%s %s%s\n", c, base, p)
		}
	}
	return b.String()
}

func newFetcher(t testing.TB) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(fetch.Config{HostDelay: 0})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func parseSeeds(t testing.TB, text string) *Seeds {
	t.Helper()
	s, err := ParseSeeds(strings.NewReader(text), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBuild(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	seeds := parseSeeds(t, st.seedFile(srv.URL)+
		"course "+srv.URL+"/missing.html\n"+
		"other "+srv.URL+"/empty.html\n")
	var progress bytes.Buffer
	m, rep, err := Build(context.Background(), seeds, newFetcher(t), Options{Progress: &progress})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}

	// Documents per topic, in the seed file's order.
	var names []string
	for _, tr := range rep.Topics {
		names = append(names, tr.Name)
		if want := siteSize[tr.Name]; tr.Documents != want {
			t.Errorf("topic %s: %d documents, want %d", tr.Name, tr.Documents, want)
		}
	}
	if !slices.Equal(names, []string{"course", "faculty"}) {
		t.Errorf("report topics = %v, want [course faculty]", names)
	}
	if rep.Other != siteSize["other"] {
		t.Errorf("other documents = %d, want %d", rep.Other, siteSize["other"])
	}
	if !slices.Equal(m.Topics(), []string{"course", "faculty"}) || m.Index(classify.Other) < 0 {
		t.Errorf("model classes = %v", m.Classes())
	}
	if rep.Terms != m.NumTerms() || rep.Terms < 18 {
		t.Errorf("report terms = %d, model has %d, want ≥ 18 (the class words)", rep.Terms, m.NumTerms())
	}

	// The 404 and the page without words are reported, not fatal.
	if len(rep.Failed) != 2 {
		t.Fatalf("failed = %+v, want the 404 and the empty page", rep.Failed)
	}
	if f := rep.Failed[0]; f.Source != srv.URL+"/empty.html" || !strings.Contains(f.Reason, "no text") {
		t.Errorf("failed[0] = %+v, want the empty page", f)
	}
	if f := rep.Failed[1]; f.Source != srv.URL+"/missing.html" || !strings.Contains(f.Reason, string(fetch.ReasonStatus)) || !strings.Contains(f.Reason, "404") {
		t.Errorf("failed[1] = %+v, want the 404", f)
	}

	// The top features of each topic hold its words; the filler words,
	// on every page, are not among the best.
	for _, tr := range rep.Topics {
		if len(tr.Features) == 0 || len(tr.Features) > 30 {
			t.Fatalf("topic %s: %d features", tr.Name, len(tr.Features))
		}
		top := make(map[string]bool)
		for _, f := range tr.Features[:min(12, len(tr.Features))] {
			top[f.Term] = true
		}
		for _, w := range classWords[tr.Name] {
			if !top[w] {
				t.Errorf("topic %s: %q not among the top features %v", tr.Name, w, tr.Features[:12])
			}
		}
		for _, w := range fillerWords {
			if top[w] {
				t.Errorf("topic %s: filler word %q among the top features", tr.Name, w)
			}
		}
		if !slices.IsSortedFunc(tr.Features, func(a, b classify.Feature) int {
			return -cmpFloat(a.Chi2, b.Chi2)
		}) {
			t.Errorf("topic %s: features not sorted by χ²", tr.Name)
		}
	}

	// Cross-validation: the page set is separable.
	if rep.Folds != 5 || rep.Page == nil {
		t.Fatalf("folds = %d, page evaluation = %v", rep.Folds, rep.Page)
	}
	if rep.Page.Documents != 34 {
		t.Errorf("page evaluation on %d documents, want 34", rep.Page.Documents)
	}
	for _, c := range []string{"course", "faculty"} {
		ts, ok := rep.Page.Topic(c)
		if !ok || ts.Precision < 0.9 || ts.Recall < 0.9 || ts.Support != siteSize[c] {
			t.Errorf("page cross-validation of %s = %+v, want precision and recall ≥ 0.9", c, ts)
		}
	}
	// Two links to examples on each of the 34 pages are labelled segments.
	if rep.Segments != 68 || rep.Segment == nil || rep.Segment.Documents != 68 {
		t.Errorf("labelled segments = %d, segment evaluation = %+v, want 68", rep.Segments, rep.Segment)
	}
	if ts, ok := rep.Segment.Topic("course"); !ok || ts.Support != 22 {
		t.Errorf("segment evaluation of course = %+v, want support 22 (12 from course, 10 from faculty pages)", ts)
	}
	if rep.LinkDocuments != 0 {
		t.Errorf("link documents = %d with windows, want 0", rep.LinkDocuments)
	}

	// Progress counts every example.
	if !strings.Contains(progress.String(), "fetched 36/36 examples") || !strings.HasSuffix(progress.String(), "\n") {
		t.Errorf("progress = %q", progress.String())
	}

	// The model separates the classes on fresh text.
	post := m.Posterior(strings.Fields("homework exam lecture syllabus"), nil)
	if post[m.Index("course")] < 0.9 {
		t.Errorf("P(course | course words) = %v", post)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestBuild_documents(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	f := newFetcher(t)
	// Training documents per class: pages, windows (see siteTokens) and
	// link segments labelled with their target's class (course: 12 from
	// course pages and 10 from faculty pages; faculty: 10 + 12 from other
	// pages; other: 12 + 12 from course pages).
	pages := map[string]int{"course": 12, "faculty": 10, "other": 12}
	windows := map[string]int{"course": 36, "faculty": 20, "other": 24}
	links := map[string]int{"course": 22, "faculty": 22, "other": 24}
	sum := func(ms ...map[string]int) map[string]int {
		out := make(map[string]int)
		for _, m := range ms {
			for k, v := range m {
				out[k] += v
			}
		}
		return out
	}
	tests := []struct {
		docs     Documents
		want     map[string]int
		linkDocs int
	}{
		{"", windows, 0},
		{DocPages, pages, 0},
		{DocWindows, windows, 0},
		{DocBoth, sum(pages, windows), 0},
		{DocLinks, links, 68},
		{DocWindowsLinks, sum(windows, links), 68},
	}
	for _, tt := range tests {
		t.Run(string(tt.docs), func(t *testing.T) {
			seeds := parseSeeds(t, st.seedFile(srv.URL))
			m, rep, err := Build(context.Background(), seeds, f, Options{Documents: tt.docs, Folds: 2})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			for c, n := range tt.want {
				if got := m.Documents(c); got != n {
					t.Errorf("%s: %d training documents, want %d", c, got, n)
				}
			}
			if rep.LinkDocuments != tt.linkDocs {
				t.Errorf("link documents = %d, want %d", rep.LinkDocuments, tt.linkDocs)
			}
			// Report.Topics counts pages whatever the documents are.
			if rep.Topics[0].Documents != 12 || rep.Topics[1].Documents != 10 || rep.Other != 12 {
				t.Errorf("report documents = %+v, other %d", rep.Topics, rep.Other)
			}
			// The segment-level evaluation trains each fold on the same
			// kind of documents, so every labelled segment is scored.
			if rep.Segment == nil || rep.Segment.Documents != 68 {
				t.Errorf("segment evaluation = %+v, want 68 documents", rep.Segment)
			}
		})
	}
}

func TestBuild_errors(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	f := newFetcher(t)
	good := st.seedFile(srv.URL)
	tests := []struct {
		name    string
		seeds   string
		opts    Options
		want    string
		failed  int  // entries of Report.Failed
		withRep bool // a report is returned with the error
	}{
		{
			name:    "topic whose examples all fail",
			seeds:   good + "ghost " + srv.URL + "/gone1.html\nghost " + srv.URL + "/gone2.html\n",
			want:    "topic ghost: none of its 2 example pages could be used",
			failed:  2,
			withRep: true,
		},
		{
			name:    "negative examples all fail",
			seeds:   "course " + srv.URL + "/course/00.html\nother " + srv.URL + "/gone.html\nother " + srv.URL + "/empty.html\n",
			want:    "none of the negative examples could be used",
			failed:  2,
			withRep: true,
		},
		{
			name: "links mode without links to a class",
			seeds: "course " + srv.URL + "/course/00.html\ncourse " + srv.URL + "/course/01.html\n" +
				"faculty " + srv.URL + "/faculty/00.html\nfaculty " + srv.URL + "/faculty/01.html\n" +
				"other " + srv.URL + "/other/05.html\n",
			opts:    Options{Documents: DocLinks},
			want:    "class other: no training documents",
			withRep: true,
		},
		{name: "no topics", seeds: "other " + srv.URL + "/other/00.html\n", want: "no topic"},
		{name: "no negatives", seeds: "course " + srv.URL + "/course/00.html\n", want: "no negative examples"},
		{name: "no negatives, one topic, labelled negatives", seeds: "course " + srv.URL + "/course/00.html\n", opts: Options{LabelledNegatives: true}, want: "no negative examples"},
		{name: "no negatives, two topics", seeds: "course " + srv.URL + "/course/00.html\nfaculty " + srv.URL + "/faculty/00.html\n", want: "no negative examples"},
		{name: "unknown documents", seeds: good, opts: Options{Documents: "sentences"}, want: `unknown training documents "sentences"`},
		{name: "bad classify options", seeds: good, opts: Options{Classify: classify.Options{Threshold: 2}}, want: "hreshold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, rep, err := Build(context.Background(), parseSeeds(t, tt.seeds), f, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build error = %v, want %q", err, tt.want)
			}
			if m != nil {
				t.Error("model returned with an error")
			}
			if (rep != nil) != tt.withRep {
				t.Fatalf("report = %+v, want one: %v", rep, tt.withRep)
			}
			if rep != nil && len(rep.Failed) != tt.failed {
				t.Errorf("failed = %+v, want %d entries", rep.Failed, tt.failed)
			}
		})
	}
}

// With LabelledNegatives, topics without "other" examples train a model
// of the topics alone, each the others' negatives.
func TestBuild_labelledNegatives(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	var b strings.Builder
	for _, c := range []string{"course", "faculty"} {
		for _, p := range st.paths[c] {
			fmt.Fprintf(&b, "%s %s%s\n", c, srv.URL, p)
		}
	}
	m, rep, err := Build(context.Background(), parseSeeds(t, b.String()), newFetcher(t), Options{LabelledNegatives: true, Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Classes(); !slices.Equal(got, []string{"course", "faculty"}) {
		t.Errorf("classes %q, want course and faculty alone", got)
	}
	if rep.Other != 0 || len(rep.Topics) != 2 || rep.Topics[0].Documents != 12 || rep.Topics[1].Documents != 10 {
		t.Errorf("report: %d other documents, topics %+v; want none, and 12 course and 10 faculty", rep.Other, rep.Topics)
	}
	// The site's course and faculty pages use words of their own: the
	// cross-validated pages are told apart.
	if rep.Page == nil || rep.Page.Documents != 22 || rep.Page.Accuracy < 0.9 {
		t.Errorf("cross-validated pages: %+v, want the 22 pages, at least 90 %% right", rep.Page)
	}
	sc := NewScorer(m)
	page := mustSplit(t, st.pages[st.paths["faculty"][0]])
	if s := sc.ScorePage(page.Tokens, nil); !(s[1] > 0.5 && s[0] < 0.5) {
		t.Errorf("a faculty page scores %v (course, faculty), want faculty", s)
	}
}

// TestBuild_redirectedDuplicates: an example that redirects to another
// example of its class is that page, trained on once and reported as a
// duplicate; one of another topic is that topic's example too.
func TestBuild_redirectedDuplicates(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	alias := aliasServer(t, srv.URL)
	var b strings.Builder
	for _, p := range st.paths["course"][:4] {
		fmt.Fprintf(&b, "course %s%s\n", srv.URL, p)
	}
	fmt.Fprintf(&b, "course %s/to%s\n", alias.URL, st.paths["course"][0])
	fmt.Fprintf(&b, "faculty %s%s\nfaculty %s/to%s\n", srv.URL, st.paths["faculty"][0], alias.URL, st.paths["course"][1])
	for _, p := range st.paths["other"][:4] {
		fmt.Fprintf(&b, "other %s%s\nother %s/to%s\n", srv.URL, p, alias.URL, p)
	}
	_, rep, err := Build(context.Background(), parseSeeds(t, b.String()), newFetcher(t), Options{Folds: 2})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]int{}
	for _, tr := range rep.Topics {
		docs[tr.Name] = tr.Documents
	}
	if docs["course"] != 4 || docs["faculty"] != 2 || rep.Other != 4 {
		t.Errorf("documents %v, %d other; want 4 course, 2 faculty (a course page among them) and 4 other", docs, rep.Other)
	}
	if len(rep.Failed) != 5 {
		t.Fatalf("failed %+v, want the 5 duplicates", rep.Failed)
	}
	want := fmt.Sprintf("duplicate: the same page (%s%s) as %s%s, line 1", srv.URL, st.paths["course"][0], srv.URL, st.paths["course"][0])
	if f := rep.Failed[0]; f.Source != alias.URL+"/to"+st.paths["course"][0] || f.Reason != want || f.Unreachable {
		t.Errorf("failed[0] = %+v, want the course alias: %s", f, want)
	}
}

func TestBuild_canceled(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Build(ctx, parseSeeds(t, st.seedFile(srv.URL)), newFetcher(t), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Build with a canceled context = %v, want context.Canceled", err)
	}
}

func TestBuild_localFiles(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "pages"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The course pages are local files named in the three ways a seed
	// file allows; the other pages come from the web.
	var seeds strings.Builder
	for i, p := range st.paths["course"] {
		name := strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "-")
		if err := os.WriteFile(filepath.Join(dir, "pages", name), []byte(st.pages[p]), 0o644); err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 0:
			fmt.Fprintf(&seeds, "course pages/%s\n", name)
		case 1:
			fmt.Fprintf(&seeds, "course file:pages/%s\n", name)
		default:
			fmt.Fprintf(&seeds, "course file://%s\n", filepath.ToSlash(filepath.Join(dir, "pages", name)))
		}
	}
	fmt.Fprintf(&seeds, "course pages/absent.html\n")
	for _, p := range st.paths["other"] {
		fmt.Fprintf(&seeds, "other %s%s\n", srv.URL, p)
	}
	path := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(path, []byte(seeds.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSeeds(path)
	if err != nil {
		t.Fatal(err)
	}
	m, rep, err := Build(context.Background(), s, newFetcher(t), Options{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if rep.Topics[0].Documents != 12 || m.Documents("course") != 36 {
		t.Errorf("course: %d pages, %d windows, want 12 and 36", rep.Topics[0].Documents, m.Documents("course"))
	}
	if len(rep.Failed) != 1 || rep.Failed[0].Source != filepath.Join(dir, "pages", "absent.html") {
		t.Errorf("failed = %+v, want the absent file", rep.Failed)
	}
	if ts, ok := rep.Page.Topic("course"); !ok || ts.Precision < 0.9 || ts.Recall < 0.9 {
		t.Errorf("page cross-validation of course = %+v", ts)
	}

	// Without web examples no fetcher is needed; files over the size
	// limit are refused.
	only := "course " + filepath.Join(dir, "pages", "course-00.html") + "\nother " + filepath.Join(dir, "pages", "course-01.html") + "\n"
	_, rep, err = Build(context.Background(), parseSeeds(t, only), nil, Options{MaxFileBytes: 100})
	if err == nil || len(rep.Failed) != 2 || !strings.Contains(rep.Failed[0].Reason, "over the 100-byte limit") {
		t.Errorf("Build with a 100-byte limit: %v, failed %+v", err, rep.Failed)
	}
}

// TestLoad_charset checks that a local file is decoded with the charset
// it declares: the extension says only that it is HTML.
func TestLoad_charset(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		body []byte
		want []string
	}{
		{"latin1.html", []byte("<html><head><meta charset=iso-8859-1></head><body>caf\xe9 na\xefve</body></html>"), []string{"café", "naïve"}},
		{"utf8.htm", []byte("<html><body>café naïve</body></html>"), []string{"café", "naïve"}},
		{"plain.txt", []byte("<b>bold</b> text"), segment.Tokenize("<b>bold</b> text", nil)},
		{"noext", []byte("<p>no extension</p>"), []string{"no", "extension"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.body, 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := load(context.Background(), nil, Source{Path: path}, Options{MaxFileBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Tokens, tt.want) {
				t.Errorf("tokens = %q, want %q", p.Tokens, tt.want)
			}
		})
	}
}

func TestParseDocuments(t *testing.T) {
	for _, s := range []string{"pages", "windows", "pages+windows", "links", "windows+links"} {
		d, err := ParseDocuments(s)
		if err != nil || string(d) != s {
			t.Errorf("ParseDocuments(%q) = %q, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "Pages", "page", "windows+pages", "links+windows", " links"} {
		if d, err := ParseDocuments(s); err == nil {
			t.Errorf("ParseDocuments(%q) = %q, want an error", s, d)
		}
	}
}

func tokens(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func TestExamplesOf(t *testing.T) {
	tests := []struct {
		name    string
		docs    Documents
		window  int
		n       int   // tokens on the page
		windows []int // lengths of the windows
		page    bool
	}{
		{"windows exact", DocWindows, 0, 46, []int{23, 23}, false},
		{"windows short tail dropped", DocWindows, 0, 56, []int{23, 23}, false},
		{"windows tail of half kept", DocWindows, 0, 57, []int{23, 23, 11}, false},
		{"short page is one window", DocWindows, 0, 4, []int{4}, false},
		{"empty page", DocWindows, 0, 0, nil, false},
		{"window 2 gives 7 tokens", DocWindows, 2, 16, []int{7, 7}, false},
		{"window 2 tail of 3 kept", DocWindows, 2, 17, []int{7, 7, 3}, false},
		{"negative window means the default", DocWindows, -1, 30, []int{23}, false},
		{"pages", DocPages, 0, 50, nil, true},
		{"pages and windows", DocBoth, 0, 50, []int{23, 23}, true},
		{"links alone adds nothing per page", DocLinks, 0, 50, nil, false},
		{"windows and links", DocWindowsLinks, 0, 50, []int{23, 23}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &segment.Page{Tokens: tokens(tt.n)}
			got := examplesOf("course", p, Options{Documents: tt.docs, Segment: segment.Options{Window: tt.window}})
			var want []classify.Example
			if tt.page {
				want = append(want, classify.Example{Class: "course", Tokens: p.Tokens})
			}
			at := 0
			for _, n := range tt.windows {
				want = append(want, classify.Example{Class: "course", Tokens: p.Tokens[at : at+n]})
				at += n
			}
			if len(got) != len(want) {
				t.Fatalf("%d examples, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i].Class != want[i].Class || !slices.Equal(got[i].Tokens, want[i].Tokens) {
					t.Errorf("example %d = %v %v, want %v %v", i, got[i].Class, got[i].Tokens, want[i].Class, want[i].Tokens)
				}
			}
		})
	}
}

func TestLinkExamples(t *testing.T) {
	split := func(class, pageURL, html string) doc {
		t.Helper()
		pu := urlnorm.MustParse(pageURL)
		p, err := segment.Split([]byte(html), "text/html", pu, segment.Options{Window: 2})
		if err != nil {
			t.Fatal(err)
		}
		return doc{class: class, src: Source{URL: pu}, page: p}
	}
	docs := []doc{
		split("course", "http://a.example/c1", `one two <a href="/c2">next course</a> three four <a href="/o1">a news page</a> five <a href="/c1">itself</a> <a href="/elsewhere">not an example</a>`),
		split("course", "http://a.example/c2", `<a href="http://A.example:80/c1#top">back</a>`),
		split("other", "http://a.example/o1", `news <a href="/f1">people</a> more`),
		// A local file: nothing can link to it, but its own links count.
		{class: "faculty", src: Source{Path: "/x/f1.html"}, page: mustSplit(t, `<a href="http://a.example/c2">teaching</a>`)},
	}
	got := linkExamples(docs)
	want := []classify.Example{
		{Class: "course", Tokens: []string{"one", "two", "next", "course", "three", "four"}},
		{Class: "other", Tokens: []string{"three", "four", "a", "news", "page", "five", "itself"}},
		{Class: "course", Tokens: []string{"back"}},
		{Class: "course", Tokens: []string{"teaching"}},
	}
	if len(got) != len(want) {
		t.Fatalf("linkExamples = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Class != want[i].Class || !slices.Equal(got[i].Tokens, want[i].Tokens) {
			t.Errorf("example %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func mustSplit(t *testing.T, html string) *segment.Page {
	t.Helper()
	p, err := segment.Split([]byte(html), "text/html", urlnorm.URL{}, segment.Options{Window: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func BenchmarkExamplesOf(b *testing.B) {
	p := &segment.Page{Tokens: tokens(2000)}
	opts := Options{Documents: DocBoth}
	b.ReportAllocs()
	for b.Loop() {
		examplesOf("course", p, opts)
	}
}

func TestBuild_cvThresholds(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	seeds := parseSeeds(t, st.seedFile(srv.URL))
	// 0 takes every segment as on-topic, 1.5 none.
	ths := []float64{0, classify.DefaultThreshold, 1.5}
	_, rep, err := Build(context.Background(), seeds, newFetcher(t), Options{CVThresholds: ths})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ByThreshold) != len(ths) {
		t.Fatalf("%d evaluations by threshold, want %d", len(rep.ByThreshold), len(ths))
	}
	// At the model's own threshold, the same counts as Page and Segment.
	if p, s := rep.CVAt(classify.DefaultThreshold); !reflect.DeepEqual(p, rep.Page) || !reflect.DeepEqual(s, rep.Segment) {
		t.Errorf("at the default threshold: page %+v segment %+v; want %+v and %+v", p, s, rep.Page, rep.Segment)
	}
	// Counted at each threshold.
	for _, c := range []string{"course", "faculty"} {
		var recalls []float64
		for _, tc := range rep.ByThreshold {
			ts, ok := tc.Segment.Topic(c)
			if !ok {
				t.Fatalf("threshold %v: no segment score of %s", tc.Threshold, c)
			}
			recalls = append(recalls, ts.Recall)
		}
		if recalls[0] != 1 || recalls[1] <= 0 || recalls[1] > 1 || recalls[2] != 0 {
			t.Errorf("%s segment recall at thresholds %v: %v, want 1, in (0, 1], 0", c, ths, recalls)
		}
	}
	if p, _ := rep.CVAt(0.5); p != rep.Page {
		t.Error("a threshold not cross-validated does not fall back to the model's")
	}
}

// A class of a single example is always trained on and never held out:
// it does not stop the cross-validation of the others.
func TestBuild_singleExampleClass(t *testing.T) {
	st := newSite()
	st.pages["/dept.html"] = pageHTML(rand.New(rand.NewPCG(3, 4)), "faculty", 40, []string{"/about.html", "/about.html", "/about.html"}, []string{"", "", ""})
	srv := st.serve(t)
	seeds := parseSeeds(t, st.seedFile(srv.URL)+"dept "+srv.URL+"/dept.html\n")
	_, rep, err := Build(context.Background(), seeds, newFetcher(t), Options{CVThresholds: []float64{0.5}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if rep.Folds != 5 || rep.Page == nil || len(rep.ByThreshold) != 1 {
		t.Fatalf("folds = %d, page evaluation = %v, by threshold = %v: want 5 folds", rep.Folds, rep.Page, rep.ByThreshold)
	}
	if want := siteSize["course"] + siteSize["faculty"] + siteSize["other"]; rep.Page.Documents != want {
		t.Errorf("page evaluation on %d documents, want %d (the single dept page never held out)", rep.Page.Documents, want)
	}
	if ts, _ := rep.Page.Topic("dept"); ts.Support != 0 {
		t.Errorf("dept held out: %+v", ts)
	}
	ts, ok := rep.ByThreshold[0].Page.Topic("course")
	if !ok || ts.Precision < 0.9 || ts.Recall < 0.9 {
		t.Errorf("course at threshold 0.5 = %+v, want precision and recall ≥ 0.9", ts)
	}
}

// TestLoad_notRegular checks that a local example that is not a regular
// file is refused at once: a device or a named pipe has no size to check
// and may never end (a read of /dev/zero would fill the memory).
func TestLoad_notRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.html")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	tests := []struct {
		path string
		want string
	}{
		{fifo, "a named pipe, not a regular file"},
		{dir, "a directory, not a regular file"},
		{"/dev/zero", "a device, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := load(context.Background(), nil, Source{Path: tt.path}, Options{MaxFileBytes: 1 << 20})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("load %s: %v, want %q", tt.path, err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("load %s still reading after 5s", tt.path)
			}
		})
	}
}

// TestBuild_exampleAndNegativeConflict: a page that is a topic's example
// and, through a URL that redirects to it, a negative is trained as
// neither, and both lines are said to conflict.
func TestBuild_exampleAndNegativeConflict(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	alias := aliasServer(t, srv.URL)
	var b strings.Builder
	for _, p := range st.paths["course"][:4] {
		fmt.Fprintf(&b, "course %s%s\n", srv.URL, p)
	}
	for _, p := range st.paths["other"][:4] {
		fmt.Fprintf(&b, "other %s%s\n", srv.URL, p)
	}
	fmt.Fprintf(&b, "other %s/to%s\n", alias.URL, st.paths["course"][0])
	_, rep, err := Build(context.Background(), parseSeeds(t, b.String()), newFetcher(t), Options{Folds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Topics) != 1 || rep.Topics[0].Documents != 3 || rep.Other != 4 {
		t.Errorf("documents: %+v, %d other; want 3 course (the conflicting one left out) and 4 other", rep.Topics, rep.Other)
	}
	page := srv.URL + st.paths["course"][0]
	want := fmt.Sprintf("conflict: the same page (%s) is an example (%s, line 1) and a negative (%s/to%s, line 9); trained as neither", page, page, alias.URL, st.paths["course"][0])
	if len(rep.Failed) != 2 || rep.Failed[0].Reason != want || rep.Failed[1].Reason != want {
		t.Errorf("failed %+v, want both lines: %s", rep.Failed, want)
	}
}

// aliasServer serves, at /toPATH, a redirect to base+PATH.
func aliasServer(t *testing.T, base string) *httptest.Server {
	alias := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, base+strings.TrimPrefix(r.URL.Path, "/to"), http.StatusMovedPermanently)
	}))
	t.Cleanup(alias.Close)
	return alias
}

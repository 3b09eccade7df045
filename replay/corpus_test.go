package replay

import (
	"bytes"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/urlnorm"
)

// The counts below were measured on ../shared/corpus/webkb.tgz.
func TestCorpus_Stats(t *testing.T) {
	start := time.Now()
	a := openCorpus(t)
	t.Logf("loaded in %v (includes the first open only)", time.Since(start))
	st := a.Stats()
	t.Logf("stats: %+v", st)

	wantPerLabel := map[string]int{ // README
		"course": 930, "faculty": 1124, "student": 1641, "project": 504,
		"department": 182, "staff": 137, "other": 3764,
	}
	if !maps.Equal(st.FilesPerLabel, wantPerLabel) {
		t.Errorf("FilesPerLabel = %v, want %v", st.FilesPerLabel, wantPerLabel)
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"Files", st.Files, 8282},
		{"Skipped (ftp:, file:)", st.Skipped, 52},
		{"WithHeader", st.WithHeader, 8228},
		{"Bare", st.Bare, 2},
		{"Redirects", st.Redirects, 79},
		{"DroppedHeaderLines", st.DroppedHeaderLines, 4},
		{"Pages", st.Pages, 8214},
		{"Collisions", st.Collisions, 16},
		{"Conflicts", st.Conflicts, 11},
		{"len(Files())", len(a.Files()), 8230},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, s := range a.Skipped() {
		if !strings.Contains(s.Name, "/ftp:") && !strings.Contains(s.Name, "/file:") {
			t.Errorf("skipped %s: %s", s.Name, s.Reason)
		}
	}

	plain, crNames := 0, 0
	for _, p := range a.Files() {
		if strings.HasPrefix(p.ContentType(), "text/plain") {
			plain++
		}
		if strings.HasSuffix(p.Name, "\r") {
			crNames++
		}
		if strings.ContainsAny(p.URL.String(), "\r\n") || strings.Contains(p.URL.String(), "%0D") {
			t.Errorf("%q: URL keeps a carriage return", p.Name)
		}
		if p.Header != nil && p.Header.Get("Content-Length") != "" {
			t.Errorf("%q: stored Content-Length kept", p.Name)
		}
	}
	if plain != 22 || crNames != 2 {
		t.Errorf("text/plain files = %d, names ending in CR = %d; want 22, 2", plain, crNames)
	}

	rules := map[string]int{}
	for _, l := range a.Labels() {
		rules[l.Rule]++
		if !slices.Contains(LabelPrecedence, l.Label) || !slices.Contains(GroupPrecedence, l.Group) {
			t.Errorf("%s: unexpected label %s/%s", l.URL, l.Label, l.Group)
		}
		if l.Rule != RuleUnique {
			t.Logf("collision %s: kept %s/%s by %s over %v", l.URL, l.Label, l.Group, l.Rule, l.Others)
		}
	}
	wantRules := map[string]int{RuleUnique: 8214 - 16, RuleAgree: 5, RuleNonOther: 5, RulePrecedence: 6}
	if !maps.Equal(rules, wantRules) {
		t.Errorf("labels per rule = %v, want %v", rules, wantRules)
	}
}

func TestCorpus_Reachable(t *testing.T) {
	a := openCorpus(t)
	seeds, err := DepartmentSeeds(a)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"www.cs.cornell.edu", "www.cs.utexas.edu", "www.cs.washington.edu", "www.cs.wisc.edu"}
	for i, s := range seeds {
		if s.Host() != want[i] || s.Path() != "/" {
			t.Errorf("seed %d = %s, want the home page of %s", i, s, want[i])
		}
	}

	total := map[string]int{}
	for _, l := range a.Labels() {
		total[l.Label]++
	}
	for _, ex := range []struct {
		name  string
		links func(*Page) []urlnorm.URL
	}{{"parser links", nil}, {"raw links", (*Page).RawLinks}} {
		order := a.BFS(seeds, ex.links)
		per := map[string]int{}
		first := map[string]int{}
		for i, p := range order {
			per[p.Label]++
			if i < 1000 {
				first[p.Label]++
			}
		}
		t.Logf("%s: %d pages reachable from the department pages", ex.name, len(order))
		for _, l := range LabelPrecedence {
			t.Logf("%s: %-10s reachable %4d of %4d; in the first 1000 BFS fetches %4d (%.0f%% of reachable)",
				ex.name, l, per[l], total[l], first[l], 100*float64(first[l])/float64(max(per[l], 1)))
		}
		// README: within its first 1,000 fetches a BFS reaches about half
		// of the reachable course pages and a fifth of the faculty pages.
		if f := float64(first["course"]) / float64(per["course"]); f < 0.4 || f > 0.6 {
			t.Errorf("%s: %.2f of the reachable course pages in the first 1000, want about half", ex.name, f)
		}
		if f := float64(first["faculty"]) / float64(per["faculty"]); f < 0.15 || f > 0.25 {
			t.Errorf("%s: %.2f of the reachable faculty pages in the first 1000, want about a fifth", ex.name, f)
		}
		if len(order) < 4300 || len(order) > 4900 {
			t.Errorf("%s: %d pages reachable, want about 4,500–4,700", ex.name, len(order))
		}
	}
	reach := a.Reachable(seeds)
	if n := len(a.BFS(seeds, nil)); len(reach) != n {
		t.Errorf("Reachable has %d URLs, BFS %d pages", len(reach), n)
	}
}

// TestCorpus_Handler serves every stored page and checks status, body and
// Content-Length.
func TestCorpus_Handler(t *testing.T) {
	a := openCorpus(t)
	h := NewHandler(a)
	for _, p := range a.Pages() {
		r := httptest.NewRequest("GET", p.URL.String(), nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != p.Status || !bytes.Equal(w.Body.Bytes(), p.Body) {
			t.Errorf("%s: status %d with %d bytes, want %d with %d", p.URL, w.Code, w.Body.Len(), p.Status, len(p.Body))
			continue
		}
		if p.Status != 200 && w.Header().Get("Location") == "" {
			t.Errorf("%s: redirect without Location", p.URL)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	p := corpusPath()
	if p == "" {
		b.Skip("corpus ../shared/corpus/webkb.tgz beside the module root is absent")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(p); err != nil {
			b.Fatal(err)
		}
	}
}

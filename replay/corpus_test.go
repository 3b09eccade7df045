package replay

import (
	"bytes"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
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
		if !slices.Contains(testOptions.LabelPrecedence, l.Label) || !slices.Contains(testOptions.GroupPrecedence, l.Group) {
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

// TestCorpus_Handler serves every stored page and checks status, body and
// Content-Length.
func TestCorpus_Handler(t *testing.T) {
	a := openCorpus(t)
	h := NewHandler(a)
	for _, p := range a.Pages() {
		r := httptest.NewRequest("GET", p.URL.String(), nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != p.Status || !bytes.Equal(w.Body.Bytes(), p.Body()) {
			t.Errorf("%s: status %d with %d bytes, want %d with %d", p.URL, w.Code, w.Body.Len(), p.Status, p.Size())
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
		if _, err := Open(p, testOptions); err != nil {
			b.Fatal(err)
		}
	}
}

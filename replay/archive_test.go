package replay

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestOpen(t *testing.T) {
	sources := map[string]string{
		"folder": collectiontest.WriteSiteDir(t),
		"tgz":    collectiontest.WriteSiteTar(t, true),
		"tar":    collectiontest.WriteSiteTar(t, false),
	}
	var first []string
	for kind, path := range sources {
		t.Run(kind, func(t *testing.T) {
			a, err := Open(path, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			st := a.Stats()
			if st.Files != len(collectiontest.Site)+1 {
				t.Errorf("Files = %d, want %d", st.Files, len(collectiontest.Site)+1)
			}
			if st.Skipped != 2 || len(a.Skipped()) != 2 {
				t.Errorf("Skipped = %d %v, want the ftp: and file: files", st.Skipped, a.Skipped())
			}
			// 28 files, 2 skipped, 3 URLs shared by 2 files each.
			if st.Pages != 23 || len(a.Pages()) != 23 || len(a.Labels()) != 23 {
				t.Errorf("Pages = %d (%d pages, %d labels), want 23", st.Pages, len(a.Pages()), len(a.Labels()))
			}
			if st.Collisions != 3 || st.Conflicts != 2 {
				t.Errorf("Collisions, Conflicts = %d, %d; want 3, 2", st.Collisions, st.Conflicts)
			}
			if st.Redirects != 1 {
				t.Errorf("Redirects = %d, want 1", st.Redirects)
			}
			if st.DroppedHeaderLines != 1 {
				t.Errorf("DroppedHeaderLines = %d, want 1", st.DroppedHeaderLines)
			}
			if st.FilesPerLabel["other"] != 11 || st.FilesPerLabel["student"] != 4 {
				t.Errorf("FilesPerLabel = %v", st.FilesPerLabel)
			}
			if _, ok := a.Lookup(urlnorm.MustParse("http://m.test/~z/")); !ok {
				t.Error("page whose file name ends in CR not found")
			}
			var urls []string
			for _, p := range a.Pages() {
				urls = append(urls, p.URL.String())
			}
			if !slices.IsSorted(urls) {
				t.Errorf("Pages not sorted by URL: %v", urls)
			}
			if first == nil {
				first = urls
			} else if !slices.Equal(first, urls) {
				t.Errorf("pages differ between sources:\n%v\n%v", first, urls)
			}
		})
	}
}

func TestOpen_errors(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.tgz")
	if err := os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 1, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	onlyFTP := t.TempDir()
	if err := os.MkdirAll(filepath.Join(onlyFTP, "other", "misc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(onlyFTP, "other", "misc", "ftp:^^x^"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(empty, "nope.tgz"), "no such file"},
		{"empty folder", empty, "no http pages"},
		{"corrupt gzip", bad, "gzip"},
		{"only ftp", onlyFTP, "no http pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Open(tt.path, testOptions)
			if err == nil || a != nil {
				t.Fatalf("Open(%s) = %v, %v; want an error", tt.path, a, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if tt.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %v is not fs.ErrNotExist", err)
			}
		})
	}
}

func TestArchive_Labels(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url, label, group, rule string
		others                  []string
		body                    string
	}{
		{"http://m.test/~x/", "faculty", "misc", RulePrecedence, []string{"staff/misc"}, "x as faculty"},
		{"http://m.test/lab/", "project", "misc", RuleNonOther, []string{"other/misc"}, "lab as project"},
		{"http://m.test/~y/", "student", "texas", RuleAgree, []string{"student/misc"}, "y in texas"},
		{"http://a.test/", "department", "cornell", RuleUnique, nil, "A home"},
		{"http://m.test/~z/", "student", "misc", RuleUnique, nil, "z"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u := urlnorm.MustParse(tt.url)
			i, ok := slices.BinarySearchFunc(a.Labels(), u.String(), func(l Label, s string) int { return strings.Compare(l.URL.String(), s) })
			if !ok {
				t.Fatalf("no label for %s", u)
			}
			l := a.Labels()[i]
			if l.Label != tt.label || l.Group != tt.group || l.Rule != tt.rule || !slices.Equal(l.Others, tt.others) {
				t.Errorf("label = %+v, want %s/%s by %s, others %v", l, tt.label, tt.group, tt.rule, tt.others)
			}
			p, ok := a.Lookup(u)
			if !ok {
				t.Fatalf("Lookup(%s) failed", u)
			}
			if p.Label != tt.label || p.Group != tt.group || !strings.Contains(string(p.Body()), tt.body) {
				t.Errorf("page = %s/%s %q, want %s/%s containing %q", p.Label, p.Group, p.Body(), tt.label, tt.group, tt.body)
			}
		})
	}
}

// TestOpen_options checks that the precedence of labels and groups is the
// caller's: by name when none is given, else as listed, and Other last in
// any case.
func TestOpen_options(t *testing.T) {
	dir := collectiontest.WriteSiteDir(t)
	tests := []struct {
		name string
		o    Options
		want map[string]string // URL → label/group kept
	}{
		{"zero", Options{}, map[string]string{
			"http://m.test/~x/":  "faculty/misc",
			"http://m.test/~y/":  "student/misc",
			"http://m.test/lab/": "project/misc",
		}},
		{"listed", Options{LabelPrecedence: []string{"staff", Other}, GroupPrecedence: []string{"texas"}}, map[string]string{
			"http://m.test/~x/":  "staff/misc",
			"http://m.test/~y/":  "student/texas",
			"http://m.test/lab/": "project/misc",
		}},
		{"other listed first", Options{LabelPrecedence: []string{Other, "project"}}, map[string]string{
			"http://m.test/lab/": "project/misc",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Open(dir, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			for raw, want := range tt.want {
				p, ok := a.Lookup(urlnorm.MustParse(raw))
				if !ok {
					t.Fatalf("Lookup(%s) failed", raw)
				}
				if got := p.Label + "/" + p.Group; got != want {
					t.Errorf("%s kept %s, want %s", raw, got, want)
				}
			}
		})
	}
}

func TestArchive_Lookup(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url   string
		found bool
		name  string
	}{
		{"http://a.test/", true, "department/cornell/http:^^a.test^"},
		{"HTTP://A.TEST:80/", true, "department/cornell/http:^^a.test^"},
		{"http://d.test", true, "department/wisconsin/http:^^d.test"},
		{"http://a.test/people/index.html", true, "faculty/cornell/http:^^a.test^people^index.html"},
		{"http://a.test/people/", false, ""}, // served by the handler, but not stored
		{"http://m.test:8080/", true, "other/misc/http:^^m.test:8080^"},
		{"http://m.test/", false, ""},
	}
	for _, tt := range tests {
		p, ok := a.Lookup(urlnorm.MustParse(tt.url))
		if ok != tt.found || ok && p.Name != tt.name {
			t.Errorf("Lookup(%s) = %v, %v; want %s, %v", tt.url, p, ok, tt.name, tt.found)
		}
	}
}

func TestArchive_Resolve(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url  string
		name string // "" when nothing is served with 200 or a stored redirect
	}{
		{"http://a.test/people/", "faculty/cornell/http:^^a.test^people^index.html"},
		{"http://a.test/courses/cs1/index.html", "course/cornell/http:^^a.test^courses^cs1^"},
		{"http://a.test/courses/cs1/index.htm", "course/cornell/http:^^a.test^courses^cs1^"},
		{"http://a.test/docs/", "other/cornell/http:^^a.test^docs^index.htm"},
		{"http://a.test/moved", "other/cornell/http:^^a.test^moved"},
		{"http://a.test/courses", ""}, // a directory redirect
		{"http://a.test/nothing", ""},
	}
	for _, tt := range tests {
		p, ok := a.Resolve(urlnorm.MustParse(tt.url))
		if ok != (tt.name != "") || ok && p.Name != tt.name {
			t.Errorf("Resolve(%s) = %v, %v; want %q", tt.url, p, ok, tt.name)
		}
	}
}

func TestArchive_Follow(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url  string
		name string
	}{
		{"http://a.test/courses/cs1", "course/cornell/http:^^a.test^courses^cs1^"}, // through the directory redirect
		{"http://a.test/people/", "faculty/cornell/http:^^a.test^people^index.html"},
		{"http://a.test/nothing", ""},
	}
	for _, tt := range tests {
		p, ok := a.Follow(urlnorm.MustParse(tt.url))
		if ok != (tt.name != "") || ok && p.Name != tt.name {
			t.Errorf("Follow(%s) = %v, %v; want %q", tt.url, p, ok, tt.name)
		}
		if _, ok := a.Resolve(urlnorm.MustParse(tt.url)); ok && tt.url == "http://a.test/courses/cs1" {
			t.Errorf("Resolve(%s) followed the redirect", tt.url)
		}
	}
}

func TestArchive_Answer(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url      string
		name     string // of the page answered; "" for none
		status   int
		redirect string
		ok       bool
	}{
		{"http://a.test/", "department/cornell/http:^^a.test^", 200, "", true},
		{"http://a.test/people/", "faculty/cornell/http:^^a.test^people^index.html", 200, "", true}, // a directory alias
		{"http://a.test/moved", "other/cornell/http:^^a.test^moved", 301, "", true},                 // a stored redirect
		{"http://a.test/courses/cs1", "", 0, "http://a.test/courses/cs1/", true},                    // the handler's own redirect
		{"http://a.test/nothing", "", 0, "", false},
	}
	for _, tt := range tests {
		p, redirect, ok := a.Answer(urlnorm.MustParse(tt.url))
		name, status := "", 0
		if p != nil {
			name, status = p.Name, p.Status
		}
		if ok != tt.ok || name != tt.name || status != tt.status || redirect.String() != tt.redirect {
			t.Errorf("Answer(%s) = %q %d, %q, %v; want %q %d, %q, %v", tt.url, name, status, redirect, ok, tt.name, tt.status, tt.redirect, tt.ok)
		}
	}
}

func TestPage_ContentType(t *testing.T) {
	a := openSite(t)
	tests := []struct {
		url, want string
		html      bool
	}{
		{"http://a.test/", "text/html", true},
		{"http://b.test/", "text/html", true}, // bare body
		{"http://a.test/notes.txt", "text/plain", false},
	}
	for _, tt := range tests {
		p, ok := a.Lookup(urlnorm.MustParse(tt.url))
		if !ok {
			t.Fatalf("Lookup(%s) failed", tt.url)
		}
		if got := p.ContentType(); got != tt.want || p.IsHTML() != tt.html {
			t.Errorf("%s: ContentType() = %q, IsHTML() = %v; want %q, %v", tt.url, got, p.IsHTML(), tt.want, tt.html)
		}
	}
}

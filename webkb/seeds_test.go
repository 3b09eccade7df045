package webkb

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/training"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestWriteSeeds(t *testing.T) {
	a, err := Open(collectiontest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", "other"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\nseed\t"); n != 4 {
		t.Errorf("%d crawl seeds, want the 4 department pages:\n%s", n, out)
	}
	if n := strings.Count(out, "\ncourse\thttp://m.test/"); n != 8 {
		t.Errorf("%d course examples, want the 8 of group misc:\n%s", n, out)
	}
	if n := strings.Count(out, "\nother\thttp://m.test/"); n != 8 {
		t.Errorf("%d negatives, want the 8 other pages of misc:\n%s", n, out)
	}
	if strings.Contains(out, "a.test/c") {
		t.Errorf("a page of another group is an example:\n%s", out)
	}
	var refused strings.Builder
	if _, err := WriteSeeds(&refused, a, nil, []string{"faculty"}, "misc", "other"); err == nil || !strings.Contains(err.Error(), "(its labels: course, other)") {
		t.Errorf("a topic without examples in the group: %v; want refused, listing the group's labels", err)
	}
	if refused.Len() > 0 {
		t.Errorf("a refused seed file was written in part: %d bytes", refused.Len())
	}
	if _, err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", "some"); err == nil {
		t.Error("negatives other than other, rest or labels are accepted")
	}
}

// TestWriteSeeds_negatives: a page of the group labelled with neither a
// topic nor "other" is a negative of its kind ("other"), a negative
// ("rest") or an example of its own label ("labels").
func TestWriteSeeds_negatives(t *testing.T) {
	dir := collectiontest.Write(t)
	collectiontest.AddPage(t, dir, "student", "misc", "http://m.test/s0.html", "graduate student home page")
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for negatives, want := range map[string]string{"other": "other:student", "rest": "other", "labels": "student"} {
		var b strings.Builder
		if _, err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", negatives); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		role := ""
		for _, line := range strings.Split(out, "\n") {
			if r, u, ok := strings.Cut(line, "\t"); ok && u == "http://m.test/s0.html" {
				role = r
			}
		}
		if role != want {
			t.Errorf("negatives %s: the student page's role is %q, want %q:\n%s", negatives, role, want, out)
		}
		if n := strings.Count(out, "\nother\thttp://m.test/o"); n != 8 {
			t.Errorf("negatives %s: %d of the 8 other pages are negatives", negatives, n)
		}
		if n := strings.Count(out, "\ncourse\thttp://m.test/"); n != 8 {
			t.Errorf("negatives %s: %d of the 8 course pages are examples", negatives, n)
		}
	}
}

func TestWriteReachableLabels(t *testing.T) {
	a, err := Open(collectiontest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReachableLabels(&b, a, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// 4 departments, each with 6 course and 6 other pages; the misc group
	// is not linked from them.
	if len(lines) != 4*13 {
		t.Errorf("%d labelled reachable pages, want 52:\n%s", len(lines), b.String())
	}
	if strings.Contains(b.String(), "m.test") {
		t.Errorf("pages of misc, unreachable from the seeds, are listed")
	}
	nowhere, err := urlnorm.Parse("http://nowhere.test/")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteReachableLabels(io.Discard, a, []urlnorm.URL{nowhere}); err == nil || !strings.Contains(err.Error(), "nothing to find") {
		t.Errorf("seeds outside the collection: %v, want an error", err)
	}
}

// WriteSeeds writes the seeds it is given, and says what is wrong with a
// group it cannot take examples from.
func TestWriteSeeds_seedsAndErrors(t *testing.T) {
	a, err := Open(collectiontest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	start, err := urlnorm.Parse("http://b.test/")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := WriteSeeds(&b, a, []urlnorm.URL{start}, []string{"course"}, "misc", "other"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\nseed\t"); n != 1 || !strings.Contains(b.String(), "\nseed\thttp://b.test/\n") {
		t.Errorf("seeds given: b.test only, got:\n%s", b.String())
	}

	_, err = WriteSeeds(io.Discard, a, nil, []string{"course"}, "pool", "other")
	if err == nil || !strings.Contains(err.Error(), `no group "pool"`) || !strings.Contains(err.Error(), "cornell, misc, texas, washington, wisconsin") {
		t.Errorf("an absent group: %v; want its name and the collection's groups", err)
	}
	if _, err := WriteSeeds(io.Discard, a, nil, []string{"course", "other"}, "cornell", "other"); err == nil {
		t.Error(`the topic "other" is accepted`)
	}
	only := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html": "a",
		"review/web/http:^^u.test^b.html": "b",
		"department/site/http:^^s.test^":  "home",
	})
	_, err = WriteSeeds(io.Discard, only, nil, []string{"recipe"}, "web", "other")
	if err == nil || !strings.Contains(err.Error(), "--negatives rest") {
		t.Errorf("no page labelled other: %v; want the way to other negatives", err)
	}
	if _, err := WriteSeeds(io.Discard, only, nil, []string{"recipe"}, "web", "rest"); err != nil {
		t.Errorf("negatives rest: %v", err)
	}
	// By default: other when the group has such pages, else rest.
	if n := Negatives(only, "web", ""); n != "rest" {
		t.Errorf(`Negatives of a group without "other" pages = %q, want rest`, n)
	}
	if n := Negatives(a, "misc", ""); n != "other" {
		t.Errorf(`Negatives of a group with "other" pages = %q, want other`, n)
	}
	if n := Negatives(only, "web", "other"); n != "other" {
		t.Errorf("Negatives given other = %q, want it kept", n)
	}
	b.Reset()
	if _, err := WriteSeeds(&b, only, nil, []string{"recipe"}, "", ""); err != nil {
		t.Errorf("group and negatives by default: %v", err)
	} else if !strings.Contains(b.String(), "\nrecipe\thttp://u.test/a.html\n") || !strings.Contains(b.String(), "\nother:review\thttp://u.test/b.html\n") {
		t.Errorf("group and negatives by default: want web's recipe page an example and its review page a negative of its kind:\n%s", b.String())
	}
	// A label that makes no name of a kind is given one, and every
	// negative is still one of its kind.
	odd := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html":    "a",
		"review/web/http:^^u.test^b.html":    "b",
		"Bad Label/web/http:^^u.test^c.html": "c",
		"department/site/http:^^s.test^":     "home",
	})
	b.Reset()
	if renamed, err := WriteSeeds(&b, odd, nil, []string{"recipe"}, "", ""); err != nil {
		t.Errorf("a label that is no name: %v", err)
	} else if !strings.Contains(b.String(), "\nother:review\thttp://u.test/b.html\n") || !strings.Contains(b.String(), "\nother:bad-label\thttp://u.test/c.html\n") ||
		len(renamed) != 1 || renamed[0] != (Renamed{"Bad Label", "bad-label"}) {
		t.Errorf("a label that is no name: renamed %v, want every negative one of its kind, Bad Label's bad-label:\n%s", renamed, b.String())
	}
	if _, err := WriteSeeds(io.Discard, only, nil, []string{"recipe", "review"}, "web", "rest"); err == nil || !strings.Contains(err.Error(), "no negative example") {
		t.Errorf("every page an example: %v; want no negative example", err)
	}
}

// TestWriteSeeds_labelsThatAreNoNames: a label that, lower-cased, is no
// class name, or is a reserved role or another label's, is written under
// a name of its own, the same in every mode and every run, and said; a
// label that names the topic (classify.NameOf) gives its examples, and
// is said too; the seed file reads back with a class for every label.
func TestWriteSeeds_labelsThatAreNoNames(t *testing.T) {
	a := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html":    "a",
		"other/web/http:^^u.test^o.html":     "o",
		"student/web/http:^^u.test^s1.html":  "s1",
		"Student/web/http:^^u.test^s2.html":  "s2", // student's, lower-cased
		"bad-label/web/http:^^u.test^b.html": "b",
		"Bad Label/web/http:^^u.test^c.html": "c", // bad-label's, made a name
		"Recipe/web/http:^^u.test^r.html":    "r", // the topic's, lower-cased: its examples
		"seed/web/http:^^u.test^d.html":      "d", // a role of seed files
		"Other/web/http:^^u.test^e.html":     "e", // other is no class
		"!!!/web/http:^^u.test^f.html":       "f", // nothing left
		"department/site/http:^^s.test^":     "home",
	})
	want := map[string]string{ // the role of each page with negatives other
		"a.html": "recipe", "o.html": "other", "s1.html": "other:student", "s2.html": "other:student-2",
		"b.html": "other:bad-label", "c.html": "other:bad-label-2", "r.html": "recipe",
		"d.html": "other:seed-2", "e.html": "other:other-2", "f.html": "other:kind",
	}
	wantRenamed := []Renamed{{"Recipe", "recipe"}, {"!!!", "kind"}, {"Bad Label", "bad-label-2"}, {"Other", "other-2"},
		{"Student", "student-2"}, {"seed", "seed-2"}}
	var first string
	for run := range 5 {
		for _, negatives := range []string{"other", "labels"} {
			var b strings.Builder
			renamed, err := WriteSeeds(&b, a, nil, []string{"recipe"}, "web", negatives)
			if err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !slices.Equal(renamed, wantRenamed) {
				t.Errorf("negatives %s: renamed %v, want %v", negatives, renamed, wantRenamed)
			}
			for _, r := range wantRenamed {
				if line := fmt.Sprintf("# label %q named %s in this file\n", r.Label, r.Kind); !strings.Contains(out, line) {
					t.Errorf("negatives %s: the header lacks %q:\n%s", negatives, line, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				role, u, ok := strings.Cut(line, "\t")
				page := strings.TrimPrefix(u, "http://u.test/")
				if !ok || role == "seed" {
					continue
				}
				w := want[page]
				if negatives == "labels" {
					w = strings.TrimPrefix(w, "other:")
				}
				if role != w {
					t.Errorf("negatives %s: %s written as %q, want %q", negatives, page, role, w)
				}
			}
			s, err := training.ParseSeeds(strings.NewReader(out), "")
			if err != nil {
				t.Fatalf("negatives %s: the seed file does not read back: %v\n%s", negatives, err, out)
			}
			if classes := s.PageSeeds().Topics; len(classes) != 8 {
				t.Errorf("negatives %s: the page judge's classes %v, want the topic (recipe and Recipe) and the 7 other labels", negatives, classes)
			}
			if run == 0 && negatives == "other" {
				first = out
			} else if negatives == "other" && out != first {
				t.Errorf("run %d wrote another seed file:\n%s\nthan the first:\n%s", run, out, first)
			}
		}
	}
}

package webkb

import (
	"io"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
	"github.com/scent-crawler/scent/urlnorm"
)

func TestWriteSeeds(t *testing.T) {
	a, err := Open(collectiontest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", "other"); err != nil {
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
	if err := WriteSeeds(&refused, a, nil, []string{"faculty"}, "misc", "other"); err == nil || !strings.Contains(err.Error(), "(its labels: course, other)") {
		t.Errorf("a topic without examples in the group: %v; want refused, listing the group's labels", err)
	}
	if refused.Len() > 0 {
		t.Errorf("a refused seed file was written in part: %d bytes", refused.Len())
	}
	if err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", "some"); err == nil {
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
		if err := WriteSeeds(&b, a, nil, []string{"course"}, "misc", negatives); err != nil {
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
	if err := WriteSeeds(&b, a, []urlnorm.URL{start}, []string{"course"}, "misc", "other"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\nseed\t"); n != 1 || !strings.Contains(b.String(), "\nseed\thttp://b.test/\n") {
		t.Errorf("seeds given: b.test only, got:\n%s", b.String())
	}

	err = WriteSeeds(io.Discard, a, nil, []string{"course"}, "pool", "other")
	if err == nil || !strings.Contains(err.Error(), `no group "pool"`) || !strings.Contains(err.Error(), "cornell, misc, texas, washington, wisconsin") {
		t.Errorf("an absent group: %v; want its name and the collection's groups", err)
	}
	if err := WriteSeeds(io.Discard, a, nil, []string{"course", "other"}, "cornell", "other"); err == nil {
		t.Error(`the topic "other" is accepted`)
	}
	only := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html": "a",
		"review/web/http:^^u.test^b.html": "b",
		"department/site/http:^^s.test^":  "home",
	})
	err = WriteSeeds(io.Discard, only, nil, []string{"recipe"}, "web", "other")
	if err == nil || !strings.Contains(err.Error(), "--negatives rest") {
		t.Errorf("no page labelled other: %v; want the way to other negatives", err)
	}
	if err := WriteSeeds(io.Discard, only, nil, []string{"recipe"}, "web", "rest"); err != nil {
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
	if err := WriteSeeds(&b, only, nil, []string{"recipe"}, "", ""); err != nil {
		t.Errorf("group and negatives by default: %v", err)
	} else if !strings.Contains(b.String(), "\nrecipe\thttp://u.test/a.html\n") || !strings.Contains(b.String(), "\nother:review\thttp://u.test/b.html\n") {
		t.Errorf("group and negatives by default: want web's recipe page an example and its review page a negative of its kind:\n%s", b.String())
	}
	// A label that makes no name of a kind: every negative a plain one.
	odd := writeCollection(t, map[string]string{
		"recipe/web/http:^^u.test^a.html":    "a",
		"review/web/http:^^u.test^b.html":    "b",
		"Bad Label/web/http:^^u.test^c.html": "c",
		"department/site/http:^^s.test^":     "home",
	})
	b.Reset()
	if err := WriteSeeds(&b, odd, nil, []string{"recipe"}, "", ""); err != nil {
		t.Errorf("a label that is no name: %v", err)
	} else if strings.Contains(b.String(), "other:") || strings.Count(b.String(), "\nother\thttp://u.test/") != 2 {
		t.Errorf("a label that is no name: want every negative a plain one:\n%s", b.String())
	}
	if err := WriteSeeds(io.Discard, only, nil, []string{"recipe", "review"}, "web", "rest"); err == nil || !strings.Contains(err.Error(), "no negative example") {
		t.Errorf("every page an example: %v; want no negative example", err)
	}
}

package crawler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestSectionOf(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.test/":                       "", // a host's root: the whole site
		"http://a.test/index.html":             "",
		"http://a.test/cs100/":                 "http://a.test/cs100/",
		"http://a.test/cs100/Index.HTML":       "http://a.test/cs100/",
		"http://a.test/courses/cs100/home.htm": "http://a.test/courses/cs100/",
		"http://a.test/cs100/?term=fall":       "", // a query names a page, not a directory
		// A file named after its directory is the directory's entry.
		"http://a.test/~cs302/cs302.html":       "http://a.test/~cs302/",
		"http://a.test/Courses/CS100/CS100.htm": "http://a.test/Courses/CS100/",
		"http://a.test/~cs354-1/cs354.html":     "http://a.test/~cs354-1/",
		"http://a.test/~bob/bob.html":           "http://a.test/~bob/",
		// Any other file owns the folder named after it, not the
		// directory it shares with its siblings.
		"http://a.test/courses/cs100.html":    "http://a.test/courses/cs100/",
		"http://a.test/~bob/cs354.html":       "http://a.test/~bob/cs354/",
		"http://a.test/cs354-1/cs354-10.html": "http://a.test/cs354-1/cs354-10/",
		"http://a.test/courses/syllabus":      "", // no extension: no folder of its own
		"http://a.test/courses.html":          "", // at the root: its folder could be the site's
	} {
		if got := sectionOf(urlnorm.MustParse(in)); got != want {
			t.Errorf("sectionOf(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestSections_divert(t *testing.T) {
	s := newSections([]string{"course", "faculty"})
	s.observe(&Page{FinalURL: urlnorm.MustParse("http://a.test/cs100/"), Relevant: map[string]bool{"course": true, "faculty": false}})
	s.observe(&Page{FinalURL: urlnorm.MustParse("http://a.test/cs200/"), Relevant: map[string]bool{"course": true, "faculty": false}, Failure: "parse: broken"})
	s.observe(&Page{FinalURL: urlnorm.MustParse("http://a.test/~bob/cs354.html"), Relevant: map[string]bool{"course": true, "faculty": false}})
	e := func(topic, u string) Entry { return Entry{Topic: topic, URL: urlnorm.MustParse("http://a.test" + u)} }
	push := []Entry{
		e("course", "/cs100/hw1.html"),       // inside: to the parts
		e("course", "/cs100/notes/l1.html"),  // deeper inside: to the parts
		e("course", "/cs100/index.html"),     // the document's page itself
		e("course", "/cs101/"),               // a sibling directory: stays
		e("course", "/cs200/hw1.html"),       // its index page failed: stays
		e("faculty", "/cs100/hw1.html"),      // another topic: stays
		e("course~reserve", "/cs100/x.html"), // already off the stack
		e("course", "/~bob/cs354/hw1.html"),  // in the folder of a file entry: to the parts
		e("course", "/~bob/cs400.html"),      // beside it: stays
	}
	got := s.divert(append([]Entry(nil), push...), true)
	want := []string{"course~parts", "course~parts", "course~parts", "course", "course", "faculty", "course~reserve", "course~parts", "course"}
	for i, g := range got {
		if g.Topic != want[i] {
			t.Errorf("%s %s went to %s, want %s", push[i].Topic, push[i].URL, g.Topic, want[i])
		}
	}
	if got := s.divert(append([]Entry(nil), push...), false); len(got) != 5 {
		t.Errorf("without tunnelling %d entries kept, want 5 (the parts dropped): %v", len(got), got)
	}
}

func TestSections_memoryIsBounded(t *testing.T) {
	s := newSections([]string{"course"})
	for i := 0; i < sectionsKept+10; i++ {
		s.observe(&Page{FinalURL: urlnorm.MustParse(fmt.Sprintf("http://a.test/c%d/", i)), Relevant: map[string]bool{"course": true}})
	}
	if s.lru.Len() != sectionsKept || len(s.by) != sectionsKept {
		t.Errorf("%d sections remembered (%d in the map), want %d", s.lru.Len(), len(s.by), sectionsKept)
	}
	// The oldest are forgotten, the newest kept.
	if s.within(0, urlnorm.MustParse("http://a.test/c0/x.html")) || !s.within(0, urlnorm.MustParse(fmt.Sprintf("http://a.test/c%d/x.html", sectionsKept+9))) {
		t.Error("eviction is not oldest first")
	}
}

func FuzzSectionOf(f *testing.F) {
	for _, s := range []string{"http://a.test/cs100/", "http://a.test/~cs302/cs302.html", "http://a.test/x/c.d.html", "http://a.test/.html", "http://a.test/a/.b", "http://a.test/?q=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := urlnorm.Parse(s)
		if err != nil {
			return
		}
		sec := sectionOf(u)
		if sec == "" {
			return
		}
		// A section is a directory of u's host: u's own, or the folder
		// named after u's file, next to it.
		p := u.Path()
		dir := u.Origin() + p[:strings.LastIndexByte(p, '/')+1]
		if !strings.HasSuffix(sec, "/") || !strings.HasPrefix(sec, dir) || sec == u.Origin()+"/" {
			t.Fatalf("sectionOf(%s) = %q: not its directory %q or a folder in it", u, sec, dir)
		}
		if sec != dir && strings.Count(sec, "/") != strings.Count(dir, "/")+1 {
			t.Fatalf("sectionOf(%s) = %q: more than one level below %q", u, sec, dir)
		}
	})
}

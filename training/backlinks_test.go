package training

import (
	"context"
	"encoding/csv"
	"reflect"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func TestReadBacklinks(t *testing.T) {
	got, err := ReadBacklinks(strings.NewReader("parent_url,target_url\n# comment\nhttp://A.com/p, http://b.com/t\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Parent.String() != "http://a.com/p" || got[0].Target.String() != "http://b.com/t" {
		t.Errorf("backlinks = %+v", got)
	}
	for _, bad := range []string{"http://a.com/p\n", "ftp://x,http://b.com/\n", "http://a.com/,mailto:x@y\n", "a,b,c\n"} {
		if _, err := ReadBacklinks(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadBacklinks(%q) gave no error", bad)
		}
	}
}

// zeros is an endless stream of zero bytes, as /dev/zero, counting what
// was read of it.
type zeros struct{ read int }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.read += len(p)
	return len(p), nil
}

// TestReadBacklinks_longLine: a file without line breaks (/dev/zero, a
// binary file given by mistake) is refused once a line passes the bound,
// without being read whole; a long line that ends in time is read.
func TestReadBacklinks_longLine(t *testing.T) {
	z := &zeros{}
	_, err := ReadBacklinks(z)
	if err == nil || !strings.Contains(err.Error(), "a line longer than 65536 bytes") {
		t.Fatalf("endless line: %v", err)
	}
	if z.read > 1<<20 {
		t.Errorf("read %d bytes of an endless line", z.read)
	}
	long := "http://a.com/" + strings.Repeat("p", 60<<10) + ",http://b.com/t\n"
	if got, err := ReadBacklinks(strings.NewReader(strings.Repeat(long, 3))); err != nil || len(got) != 3 {
		t.Errorf("three lines of 60 KiB: %d backlinks, %v", len(got), err)
	}
}

// fixedSource is a BacklinkSource answering with fixed links.
type fixedSource []Backlink

func (f fixedSource) Backlinks(_ context.Context, targets []urlnorm.URL, limit int) ([]Backlink, error) {
	want := make(map[urlnorm.URL]bool)
	for _, t := range targets {
		want[t] = true
	}
	var out []Backlink
	for _, b := range f {
		if want[b.Target] {
			out = append(out, b)
		}
	}
	return out, nil
}

func TestBuild_backlinks(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	seeds := parseSeeds(t, st.seedFile(srv.URL))
	course0 := urlnorm.MustParse(srv.URL + st.paths["course"][0])
	course1 := urlnorm.MustParse(srv.URL + st.paths["course"][1])
	other0 := urlnorm.MustParse(srv.URL + st.paths["other"][0])
	// Parents fetched and cut (course pages link to the next course page),
	// and links with stored contexts from a source.
	opts := Options{Folds: -1,
		Backlinks: []Backlink{
			{Parent: course0, Target: course1},                                      // fetched: one segment
			{Parent: urlnorm.MustParse(srv.URL + "/missing.html"), Target: course1}, // unreachable: none
			{Parent: course0, Target: urlnorm.MustParse("http://elsewhere.test/x")}, // not an example
		},
		BacklinkSource: fixedSource{
			{Parent: urlnorm.MustParse("http://hub.test/"), Target: course0, Context: []string{"fall", "courses", "cs", "101"}},
			{Parent: urlnorm.MustParse("http://hub.test/"), Target: other0, Context: []string{"campus", "news"}},
		},
	}
	_, rep, err := Build(context.Background(), seeds, newFetcher(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	var course TopicReport
	for _, tr := range rep.Topics {
		if tr.Name == "course" {
			course = tr
		}
	}
	if course.Backlinks != 2 || rep.OtherBacklinks != 1 {
		t.Errorf("backlink segments: course %d other %d, want 2 and 1", course.Backlinks, rep.OtherBacklinks)
	}
}

// TestBuild_backlinkOfTwoSources: a link that the backlinks file names
// and the store knows with its segment is one training document, not two.
func TestBuild_backlinkOfTwoSources(t *testing.T) {
	st := newSite()
	srv := st.serve(t)
	seeds := parseSeeds(t, st.seedFile(srv.URL))
	course0 := urlnorm.MustParse(srv.URL + st.paths["course"][0])
	course1 := urlnorm.MustParse(srv.URL + st.paths["course"][1])
	opts := Options{Folds: -1,
		Backlinks:      []Backlink{{Parent: course0, Target: course1}},
		BacklinkSource: fixedSource{{Parent: course0, Target: course1, Context: []string{"next", "course"}}},
	}
	_, rep, err := Build(context.Background(), seeds, newFetcher(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Topics {
		if tr.Name == "course" && tr.Backlinks != 1 {
			t.Errorf("course backlink segments %d, want 1", tr.Backlinks)
		}
	}
}

// FuzzReadBacklinks checks that the links read join normalized URLs, and
// that writing them as CSV reads them back unchanged.
func FuzzReadBacklinks(f *testing.F) {
	for _, s := range []string{
		"parent_url,target_url\n# comment\nhttp://A.com/p, http://b.com/t\n",
		"\"http://a.com/p,q\",\"http://b.com/\"\"t\"\"\"\r\n",
		"http://a.com/p\n",
		"a,b,c\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		links, err := ReadBacklinks(strings.NewReader(s))
		if err != nil {
			return
		}
		var b strings.Builder
		w := csv.NewWriter(&b)
		for _, l := range links {
			for _, u := range []urlnorm.URL{l.Parent, l.Target} {
				if again, err := urlnorm.Parse(u.String()); err != nil || again != u {
					t.Fatalf("URL %q read is not normalized: %q, %v", u, again, err)
				}
			}
			if err := w.Write([]string{l.Parent.String(), l.Target.String()}); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		back, err := ReadBacklinks(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("links written back: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(back, links) {
			t.Fatalf("links written back read %v, want %v", back, links)
		}
	})
}

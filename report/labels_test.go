package report

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/classify"
	"github.com/scent-crawler/scent/urlnorm"
)

// TestReadLabels_byteOrderMark: a byte-order mark before the first line
// is no part of its URL.
func TestReadLabels_byteOrderMark(t *testing.T) {
	l, err := ReadLabels(strings.NewReader("\ufeffhttp://a.edu/c1\tcourse\nhttp://a.edu/s\tstudent\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l[urlnorm.MustParse("http://a.edu/c1")] != "course" || len(l) != 2 {
		t.Errorf("labels %v", l)
	}
}

// TestReadLabels_names: a label is read as the class name a seed file
// gives it (classify.NameOf), so that a label "Course Pages" counts the
// pages of the topic course-pages; a line without a label stays so.
func TestReadLabels_names(t *testing.T) {
	l, err := ReadLabels(strings.NewReader("http://a.edu/c\tCourse Pages\nhttp://a.edu/o\tOther\nhttp://a.edu/s\tstudent\nhttp://a.edu/n\t\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"http://a.edu/c": "course-pages", "http://a.edu/o": "other", "http://a.edu/s": "student", "http://a.edu/n": ""}
	for u, label := range want {
		if got, ok := l[urlnorm.MustParse(u)]; !ok || got != label {
			t.Errorf("%s read as %q, want %q", u, got, label)
		}
	}
}

// TestReport_emptyCrawlJSON: a crawl without pages has an empty harvest
// curve in JSON ([]), not null.
func TestReport_emptyCrawlJSON(t *testing.T) {
	r := New("c", "link", []string{"course"}, nil, 100)
	r.Finish()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"harvest_curve":[]`) {
		t.Errorf("JSON of an empty crawl: %s", b)
	}
}

// FuzzReadLabels checks that every URL read is normalized, every label is
// one trimmed field and a class name (classify.NameOf) or none, and that
// writing the labels read as "url<TAB>label" lines reads them back
// unchanged.
func FuzzReadLabels(f *testing.F) {
	for _, s := range []string{
		"\ufeffhttp://a.edu/c1\tcourse\nhttp://a.edu/s\tstudent\n",
		"# comment\n\nHTTP://A.edu:80/x/../y\t course \textra\r\n",
		"http://a.edu/\t\n",
		"http://a.edu/ no tab\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ReadLabels(strings.NewReader(s))
		if err != nil {
			return
		}
		var b strings.Builder
		for u, label := range l {
			if again, err := urlnorm.Parse(u.String()); err != nil || again != u {
				t.Fatalf("URL %q read is not normalized: %q, %v", u, again, err)
			}
			if label != strings.TrimSpace(label) || strings.ContainsAny(label, "\t\n") || label != "" && classify.NameOf(label) != label {
				t.Fatalf("label %q of %q", label, u)
			}
			b.WriteString(u.String() + "\t" + label + "\n")
		}
		back, err := ReadLabels(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("labels written back: %v\n%s", err, b.String())
		}
		if !maps.Equal(back, l) {
			t.Fatalf("labels written back read %v, want %v", back, l)
		}
	})
}

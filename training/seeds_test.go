package training

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func u(s string) urlnorm.URL { return urlnorm.MustParse(s) }

func TestParseSeeds(t *testing.T) {
	const dir = "/data/seeds"
	tests := []struct {
		name string
		in   string
		want *Seeds
	}{
		{
			name: "roles",
			in: "seed http://www.cs.cornell.edu/\n" +
				"course http://www.cs.cmu.edu/~cs101/\n" +
				"faculty http://www.cs.cmu.edu/~prof/\n" +
				"course https://www.cs.wisc.edu/cs302/\n" +
				"other http://www.example.com/news.html\n",
			want: &Seeds{
				Topics: []string{"course", "faculty"},
				Train: map[string][]Source{
					"course": {
						{URL: u("http://www.cs.cmu.edu/~cs101/"), Line: 2},
						{URL: u("https://www.cs.wisc.edu/cs302/"), Line: 4},
					},
					"faculty": {{URL: u("http://www.cs.cmu.edu/~prof/"), Line: 3}},
				},
				Other: []Source{{URL: u("http://www.example.com/news.html"), Line: 5}},
				Crawl: []urlnorm.URL{u("http://www.cs.cornell.edu/")},
			},
		},
		{
			name: "comments and blank lines",
			in: "# a seed file\n\n   \n\t# indented comment\n" +
				"seed   http://a.example/   # a crawl starts here\n" +
				"course http://a.example/c.html#frag # fragment is part of the URL, not a comment\n" +
				"other\thttp://a.example/o.html\t#\tnegative\n",
			want: &Seeds{
				Topics: []string{"course"},
				Train:  map[string][]Source{"course": {{URL: u("http://a.example/c.html"), Line: 6}}},
				Other:  []Source{{URL: u("http://a.example/o.html"), Line: 7}},
				Crawl:  []urlnorm.URL{u("http://a.example/")},
			},
		},
		{
			name: "local files",
			in: "course pages/cs101.html\n" +
				"course ./pages/../pages/cs102.html\n" +
				"course /abs/cs103.html\n" +
				"course file:pages/cs104.html\n" +
				"course file:/abs/cs105.html\n" +
				"course file:///abs/cs106.html\n" +
				"course file://localhost/abs/a%20b.html\n" +
				"other ../neg/o.html\n",
			want: &Seeds{
				Topics: []string{"course"},
				Train: map[string][]Source{"course": {
					{Path: "/data/seeds/pages/cs101.html", Line: 1},
					{Path: "/data/seeds/pages/cs102.html", Line: 2},
					{Path: "/abs/cs103.html", Line: 3},
					{Path: "/data/seeds/pages/cs104.html", Line: 4},
					{Path: "/abs/cs105.html", Line: 5},
					{Path: "/abs/cs106.html", Line: 6},
					{Path: "/abs/a b.html", Line: 7},
				}},
				Other: []Source{{Path: "/data/neg/o.html", Line: 8}},
			},
		},
		{
			name: "duplicate seeds kept once, normalized",
			in: "seed http://A.example:80/x/../\n" +
				"seed http://a.example/\n" +
				"seed http://b.example/#top\n" +
				"seed http://a.example/\n",
			want: &Seeds{
				Train: map[string][]Source{},
				Crawl: []urlnorm.URL{u("http://a.example/"), u("http://b.example/")},
			},
		},
		{
			name: "CRLF lines",
			in:   "# comment\r\nseed http://a.example/\r\n\r\ncourse http://a.example/c\r\nother x.html\r\n",
			want: &Seeds{
				Topics: []string{"course"},
				Train:  map[string][]Source{"course": {{URL: u("http://a.example/c"), Line: 4}}},
				Other:  []Source{{Path: "/data/seeds/x.html", Line: 5}},
				Crawl:  []urlnorm.URL{u("http://a.example/")},
			},
		},
		{
			name: "role and scheme case folded",
			in:   "SEED HTTP://A.EXAMPLE/\nCourse HTTPS://a.example/C\nOther Http://b.example/\n",
			want: &Seeds{
				Topics: []string{"course"},
				Train:  map[string][]Source{"course": {{URL: u("https://a.example/C"), Line: 2}}},
				Other:  []Source{{URL: u("http://b.example/"), Line: 3}},
				Crawl:  []urlnorm.URL{u("http://a.example/")},
			},
		},
		{
			name: "topic name characters",
			in:   "web_crawling.v2-x http://a.example/\n0 http://b.example/\n",
			want: &Seeds{
				Topics: []string{"web_crawling.v2-x", "0"},
				Train: map[string][]Source{
					"web_crawling.v2-x": {{URL: u("http://a.example/"), Line: 1}},
					"0":                 {{URL: u("http://b.example/"), Line: 2}},
				},
			},
		},
		{
			name: "empty",
			in:   "",
			want: &Seeds{Train: map[string][]Source{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeeds(strings.NewReader(tt.in), dir)
			if err != nil {
				t.Fatalf("ParseSeeds: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSeeds =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseSeeds_errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // substrings of the error
		is   error
	}{
		{"one field", "# c\n\ncourse\n", []string{"line 3", "got 1 fields"}, nil},
		{"three fields", "seed http://a.example/\ncourse http://a.example/ extra\n", []string{"line 2", "got 3 fields"}, nil},
		{"three fields before comment", "course a b # c d\n", []string{"line 1", "got 3 fields"}, nil},
		{"space in topic", "Cou rse x\n", []string{"line 1", "got 3 fields"}, nil},
		{"invalid topic character", "other x\ncourse! http://a.example/\n", []string{"line 2", `"course!"`, "not a valid topic name"}, nil},
		{"invalid topic start", "_course http://a.example/\n", []string{"line 1", "not a valid topic name"}, nil},
		{"topic too long", strings.Repeat("a", 65) + " http://a.example/\n", []string{"line 1", "not a valid topic name"}, nil},
		{"non-ASCII topic", "cours\u00e9 http://a.example/\n", []string{"line 1", "not a valid topic name"}, nil},
		{"seed not a URL", "seed pages/a.html\n", []string{"line 1", "seed"}, urlnorm.ErrSyntax},
		{"seed bad host", "\n\nseed http://\n", []string{"line 3", "seed"}, urlnorm.ErrHost},
		{"seed ftp", "seed ftp://a.example/\n", []string{"line 1"}, urlnorm.ErrScheme},
		{"example ftp", "course ftp://a.example/x\n", []string{"line 1"}, urlnorm.ErrScheme},
		{"example bad host", "course http://\n", []string{"line 1"}, urlnorm.ErrHost},
		{"example bad syntax", "x http://a.example/\ncourse https://exa%zzmple/\n", []string{"line 2"}, nil},
		{"empty file path", "course file:\n", []string{"line 1", "empty file path"}, nil},
		{"file URL on another host", "course file://server/x.html\n", []string{"line 1", "server"}, nil},
		{"long line", "course " + strings.Repeat("x", 2<<20) + "\n", []string{"line 1"}, nil},
		{"kind without a name", "other: http://a.example/\n", []string{"line 1", "not a valid kind"}, nil},
		{"invalid kind", "course x\nother:Stu!dent http://a.example/\n", []string{"line 2", "not a valid kind"}, nil},
		{"kind other", "other:other http://a.example/\n", []string{"line 1", "not a valid kind"}, nil},
		{"kind seed", "other:seed http://a.example/\n", []string{"line 1", "not a valid kind"}, nil},
		{"kind of a topic", "course a.html\nother:course http://a.example/\n", []string{"line 2", "course is a topic"}, nil},
		{"topic of a kind", "other:course http://a.example/\ncourse a.html\n", []string{"line 2", "course is a kind"}, nil},
		{"example and negative", "course http://a.example/x\nother http://b.example/\nother http://a.example/x\n", []string{"line 3", "an example of a topic on line 1", "cannot be a negative"}, nil},
		{"negative and example", "other ex/c1.html\ncourse ex/c1.html\n", []string{"line 2", "a negative example on line 1"}, nil},
		{"example and negative of a kind", "faculty http://a.example/x\nother:staff http://a.example/x\n", []string{"line 2", "an example of a topic on line 1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSeeds(strings.NewReader(tt.in), "/d")
			if err == nil {
				t.Fatalf("ParseSeeds = %+v, want an error", s)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", err, tt.is)
			}
		})
	}
}

func TestLoadSeeds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "topic.txt")
	if err := os.WriteFile(path, []byte("course pages/a.html\nother http://b.example/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSeeds(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "pages", "a.html"); len(s.Train["course"]) != 1 || s.Train["course"][0].Path != want {
		t.Errorf("course examples = %+v, want the file %s", s.Train["course"], want)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}

	if _, err := LoadSeeds(filepath.Join(dir, "missing.txt")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadSeeds(missing) error = %v, want one wrapping os.ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("\ncourse\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadSeeds(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("LoadSeeds(bad) error = %v, want the path and line 2", err)
	}
}

func TestSeeds_Validate(t *testing.T) {
	src := []Source{{URL: u("http://a.example/")}}
	tests := []struct {
		name  string
		seeds *Seeds
		want  string // substring of the error; "" means valid
	}{
		{"nil", nil, "no topic"},
		{"empty", &Seeds{}, "no topic"},
		{"only crawl seeds", &Seeds{Crawl: []urlnorm.URL{u("http://a.example/")}}, "no topic"},
		{"only other", &Seeds{Other: src}, "no topic"},
		{"no other", &Seeds{Topics: []string{"course"}, Train: map[string][]Source{"course": src}}, "no negative examples"},
		{"valid", &Seeds{Topics: []string{"course"}, Train: map[string][]Source{"course": src}, Other: src}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.seeds.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSource_String(t *testing.T) {
	if got := (Source{Path: "/a/b.html", Line: 3}).String(); got != "/a/b.html" {
		t.Errorf("file source String = %q", got)
	}
	if got := (Source{URL: u("HTTP://A.example/x")}).String(); got != "http://a.example/x" {
		t.Errorf("URL source String = %q", got)
	}
}

func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{
		"seed http://www.cs.cornell.edu/\ncourse http://www.cs.cmu.edu/~cs101/\nother http://e.example/n.html\n",
		"# comment\r\n\r\ncourse pages/a.html # note\r\nother file:///x/y.html\n",
		"seed HTTP://A.example:80/a/../b?q#f\nseed http://a.example/b?q\n",
		"course file://localhost/a%20b\ncourse file:\n",
		"Course ftp://x\n",
		"a b c\n",
		"seed http://[::1]:8080/\n",
		"x http://\u00e9xample.com/\u00e9\n",
		"\x00 \xff\n",
		"faculty http://a.example/f\nother:student http://a.example/s\nother http://a.example/o\nother:Staff x\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSeeds(strings.NewReader(in), "/base")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Errorf("error %q does not start with its line", err)
			}
			return
		}
		seen := make(map[urlnorm.URL]bool)
		for _, c := range s.Crawl {
			if c.IsZero() {
				t.Fatalf("zero crawl URL in %+v", s.Crawl)
			}
			again, err := urlnorm.Parse(c.String())
			if err != nil || again != c {
				t.Errorf("crawl URL %q is not normalized: reparsed %q, %v", c, again, err)
			}
			if seen[c] {
				t.Errorf("crawl URL %q listed twice", c)
			}
			seen[c] = true
		}
		if len(s.Topics) != len(s.Train) {
			t.Errorf("%d topics but %d example lists", len(s.Topics), len(s.Train))
		}
		for _, src := range s.Kinded {
			if !slices.Contains(s.Kinds, src.Kind) || slices.Contains(s.Topics, src.Kind) {
				t.Errorf("example %+v of a kind not among the kinds %v, or a topic's", src, s.Kinds)
			}
		}
		if p := s.PageSeeds(); len(p.Topics) != len(s.Topics)+len(s.Kinds) || len(p.Kinded) != 0 {
			t.Errorf("page seeds of %d topics and %d kinds: %d classes", len(s.Topics), len(s.Kinds), len(p.Topics))
		}
		var all []Source
		for _, tp := range s.Topics {
			if len(s.Train[tp]) == 0 {
				t.Errorf("topic %q has no examples", tp)
			}
			if !validName(tp) {
				t.Errorf("bad topic name %q", tp)
			}
			all = append(all, s.Train[tp]...)
		}
		for _, src := range append(append(all, s.Other...), s.Kinded...) {
			if src.URL.IsZero() == (src.Path == "") {
				t.Errorf("source %+v should have exactly one of URL and Path", src)
			}
			if src.Path != "" && !filepath.IsAbs(src.Path) {
				t.Errorf("path %q is not absolute", src.Path)
			}
			if src.Line < 1 {
				t.Errorf("source %+v has no line", src)
			}
		}
	})
}

func TestSeeds_DiscoverySeeds(t *testing.T) {
	s, err := ParseSeeds(strings.NewReader(
		"seed http://www.cs.cornell.edu/\n"+
			"course http://www.cs.cmu.edu/~cs101/\n"+
			"course page.html\n"+
			"faculty http://www.cs.cmu.edu/~prof/\n"+
			"other http://www.example.com/news.html\n"+
			"faculty http://www.cs.cmu.edu/~cs101/\n"), "/data/seeds")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range s.DiscoverySeeds() {
		got = append(got, x.String())
	}
	want := []string{
		"http://www.cs.cmu.edu/", "http://www.example.com/",
		"http://www.cs.cmu.edu/~cs101/", "http://www.cs.cmu.edu/~prof/", "http://www.example.com/news.html",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DiscoverySeeds() = %q, want %q", got, want)
	}
}

func TestSeeds_SiteConcentration(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     float64
	}{
		// Three pages of a.test and one of b.test: (3² + 1²) / 4².
		{"two hosts", "course http://a.test/1\ncourse http://a.test/2\nother http://a.test/3\nother http://b.test/\n", 10.0 / 16},
		{"one host", "course http://a.test/1\nother http://a.test/2\n", 1},
		// Local files count as hosts of their own; the crawl's seeds
		// are not examples.
		{"files and seeds", "seed http://a.test/\ncourse c1.html\ncourse c2.html\nother http://a.test/x\nother http://a.test/y\n", 6.0 / 16},
		{"no example", "seed http://a.test/\n", 0},
	} {
		s, err := ParseSeeds(strings.NewReader(tc.in), "/data")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.SiteConcentration(); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: SiteConcentration = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestParseSeeds_bomAndRepeats: a byte-order mark before the first line
// is no part of it, and an example listed twice under one role is one
// example (under two roles, one of each).
func TestParseSeeds_bomAndRepeats(t *testing.T) {
	in := "\ufeffseed http://a.edu/\ncourse http://a.edu/c1\ncourse http://a.edu/c1\nother http://a.edu/o\nother http://a.edu/o\ncourse pages/c.html\ncourse pages/c.html\nlecture http://a.edu/c1\n"
	s, err := ParseSeeds(strings.NewReader(in), "/d")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Crawl) != 1 || len(s.Train["course"]) != 2 || len(s.Other) != 1 || len(s.Train["lecture"]) != 1 {
		t.Errorf("parsed %d seeds, course %v, other %v, lecture %v; want 1 seed, 2 course examples, 1 other, 1 lecture", len(s.Crawl), s.Train["course"], s.Other, s.Train["lecture"])
	}
}

// TestSeeds_kinds: negative examples of a kind ("other:KIND") are
// negatives of a model of the topics only when the file has no plain
// "other" line; a page judge's seeds (PageSeeds) hold every topic and
// kind as a class, in order of first appearance.
func TestSeeds_kinds(t *testing.T) {
	in := "seed http://a.example/\n" +
		"other:student http://a.example/s1\n" +
		"faculty http://a.example/f1\n" +
		"other http://a.example/o1\n" +
		"other:staff http://a.example/t1\n" +
		"other:student http://a.example/s2\n" +
		"faculty http://a.example/f2\n"
	s, err := ParseSeeds(strings.NewReader(in), "/d")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Topics, []string{"faculty"}) || !slices.Equal(s.Kinds, []string{"student", "staff"}) || len(s.Kinded) != 3 {
		t.Fatalf("topics %v, kinds %v, %d examples of kinds", s.Topics, s.Kinds, len(s.Kinded))
	}
	urls := func(us []urlnorm.URL) string {
		var out []string
		for _, u := range us {
			out = append(out, u.Path())
		}
		return strings.Join(out, " ")
	}
	if got := urls(s.Examples()); got != "/f1 /f2 /o1 /s1 /s2 /t1" {
		t.Errorf("Examples: %s", got)
	}
	if got := urls(LearntFrom(s, nil)); got != "/f1 /f2 /o1 /s1 /s2 /t1" {
		t.Errorf("LearntFrom: %s", got)
	}
	srcs := func(ss []Source) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.URL.Path())
		}
		return strings.Join(out, " ")
	}
	if got := srcs(s.negatives()); got != "/o1" {
		t.Errorf("negatives with a plain other line: %s", got)
	}
	p := s.PageSeeds()
	if !slices.Equal(p.Topics, []string{"student", "faculty", "staff"}) || srcs(p.Train["student"]) != "/s1 /s2" ||
		srcs(p.Train["staff"]) != "/t1" || srcs(p.Train["faculty"]) != "/f1 /f2" || srcs(p.Other) != "/o1" || len(p.Kinded) != 0 || p.Train["student"][0].Kind != "" {
		t.Errorf("page seeds: classes %v, %+v, other %v", p.Topics, p.Train, p.Other)
	}

	// Without a plain other line, the kinds' examples are the negatives,
	// in seed-file order, and the seeds are valid.
	s, err = ParseSeeds(strings.NewReader(strings.ReplaceAll(in, "other http://a.example/o1\n", "")), "/d")
	if err != nil {
		t.Fatal(err)
	}
	if got := srcs(s.negatives()); got != "/s1 /t1 /s2" {
		t.Errorf("negatives of kinds: %s", got)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if p := s.PageSeeds(); len(p.Other) != 0 || p.validate(true) != nil {
		t.Errorf("page seeds without plain negatives: %+v", p)
	}
}

package replay

import (
	"net/http"
	"slices"
	"testing"

	"github.com/scent-crawler/scent/urlnorm"
)

func urlStrings(us []urlnorm.URL) []string {
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.String())
	}
	return out
}

func TestPage_Links(t *testing.T) {
	a := openSite(t)
	inline := func(body string) *Page {
		return &Page{URL: urlnorm.MustParse("http://x.test/dir/page.html"), body: storedBody(body), Status: http.StatusOK}
	}
	tests := []struct {
		name string
		page *Page
		want []string
		raw  []string // RawLinks; nil means the same as want
	}{
		{
			name: "stored page",
			page: mustLookup(t, a, "http://a.test/"),
			want: []string{"http://a.test/people/", "http://a.test/courses", "http://a.test/moved", "http://a.test/missing.html", "http://a.test/notes.txt"},
			raw:  []string{"http://a.test/people/", "http://a.test/courses", "http://a.test/moved", "http://a.test/missing.html", "http://a.test/hidden.html", "http://a.test/notes.txt"},
		},
		{name: "base href", page: mustLookup(t, a, "http://a.test/people/index.html"), want: []string{"http://a.test/people/bob.html"}},
		{
			name: "frames and noframes",
			page: mustLookup(t, a, "http://m.test/frames.html"),
			want: []string{"http://m.test/left.html"},
			raw:  []string{"http://m.test/left.html", "http://m.test/noframes.html"},
		},
		{name: "text/plain", page: mustLookup(t, a, "http://a.test/notes.txt"), want: []string{}},
		{name: "stored redirect", page: mustLookup(t, a, "http://a.test/moved"), want: []string{"http://a.test/people/bob.html"}},
		{
			name: "attribute forms",
			page: inline(`<A HREF=a.html>a</A> <a href='b.html'>b</a> <a title="t" href = " c.html ">c</a>
<area href="/d.html"><iframe src="e.html"></iframe><a href="">self</a><a name="x">no link</a>
<a href="javascript:go()">js</a><a href="mailto:x@y">m</a><a href="http://Y.TEST:80/%7ez#frag">z</a><img src="i.gif">`),
			want: []string{"http://x.test/dir/a.html", "http://x.test/dir/b.html", "http://x.test/dir/c.html", "http://x.test/d.html", "http://x.test/dir/e.html", "http://y.test/~z"},
			raw: []string{"http://x.test/dir/a.html", "http://x.test/dir/b.html", "http://x.test/dir/c.html", "http://x.test/d.html", "http://x.test/dir/e.html",
				"http://y.test/~z"},
		},
		{name: "empty href is no link", page: inline(`<a href="">self</a><a href=" ">blank</a>`), want: []string{}},
		{name: "broken markup", page: inline(`<a href="ok.html"><a href="http://[bad/">x</a><a href=`), want: []string{"http://x.test/dir/ok.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := urlStrings(tt.page.Links())
			if !slices.Equal(got, tt.want) {
				t.Errorf("Links() = %q\nwant      %q", got, tt.want)
			}
			raw := tt.raw
			if raw == nil {
				raw = tt.want
			}
			if got := urlStrings(tt.page.RawLinks()); !slices.Equal(got, raw) {
				t.Errorf("RawLinks() = %q\nwant         %q", got, raw)
			}
		})
	}
}

func BenchmarkPage_Links(b *testing.B) {
	a := openCorpus(b)
	var seeds []urlnorm.URL // the department home pages
	for _, s := range []string{"http://www.cs.cornell.edu/", "http://www.cs.utexas.edu/", "http://www.cs.washington.edu/", "http://www.cs.wisc.edu/"} {
		seeds = append(seeds, mustParse(b, s))
	}
	var size int64
	for _, s := range seeds {
		p, _ := a.Lookup(s)
		size += int64(p.Size())
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range seeds {
			p, _ := a.Lookup(s)
			p.Links()
		}
	}
}

func FuzzPage_Links(f *testing.F) {
	for _, s := range []string{
		`<a href="a.html">a</a><base href="http://b.test/x/"><a href=../c>c</a>`,
		`<frameset><frame src="l.html"></frameset><noframes><a href="n.html"></a></noframes>`,
		`<!-- <a href="h.html"> --><!WA0><A HREF = 'q.html?x=1#f'>`,
		`<a href="http://[::1">`, `<a href=`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p := &Page{URL: urlnorm.MustParse("http://x.test/d/p.html"), body: storedBody(body), Status: http.StatusOK}
		for name, links := range map[string][]urlnorm.URL{"Links": p.Links(), "RawLinks": p.RawLinks()} {
			seen := map[urlnorm.URL]bool{}
			for _, u := range links {
				if u.IsZero() || seen[u] {
					t.Fatalf("%s: zero or repeated URL %q in %q", name, u, links)
				}
				seen[u] = true
				if again, err := urlnorm.Parse(u.String()); err != nil || again != u {
					t.Fatalf("%s: %q is not in normal form: %v", name, u, err)
				}
			}
		}
	})
}

// storedBody is s kept as a collection keeps its pages' bodies.
func storedBody(s string) body {
	b, _ := compressBody([]byte(s), nil)
	return b
}

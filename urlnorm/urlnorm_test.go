package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://WWW.Example.COM/a/b", "http://www.example.com/a/b"},
		{"http://example.com", "http://example.com/"},
		{"http://example.com:80/x", "http://example.com/x"},
		{"https://example.com:443/x", "https://example.com/x"},
		{"http://example.com:8080/x", "http://example.com:8080/x"},
		{"http://example.com:08080/x", "http://example.com:8080/x"},
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a/b/..", "http://example.com/a/"},
		{"http://example.com/../../x", "http://example.com/x"},
		{"http://example.com/a#frag", "http://example.com/a"},
		{"http://example.com/%7euser/%2f%3a", "http://example.com/~user/%2F%3A"},
		{"http://example.com/a%2db?q=%7e%3d", "http://example.com/a-b?q=~%3D"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"  http://example.com/x\r\n", "http://example.com/x"},
		{"http://bücher.example/", "http://xn--bcher-kva.example/"},
		{"http://[::1]:8080/", "http://[::1]:8080/"},
		{"http://127.0.0.1/", "http://127.0.0.1/"},
		{"http://example.com./a", "http://example.com/a"},
		{"http://a.b.\u034f/x", "http://a.b/x"}, // the last label maps to nothing, leaving the root's dot
		{"http://user@example.com/", "http://example.com/"},
		{"http://user:pass@Example.com:8080/a", "http://example.com:8080/a"},
		{"http://example.com:65535/", "http://example.com:65535/"},
		{"http://example.com/~scal/scal.html", "http://example.com/~scal/scal.html"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Parse(got.String())
		if err != nil || again != got {
			t.Errorf("Parse is not idempotent on %q: %q, %v", got, again, err)
		}
	}
}

func TestParse_errors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrSyntax},
		{"ftp://example.com/x", ErrScheme},
		{"mailto:a@b.c", ErrScheme},
		{"javascript:void(0)", ErrScheme},
		{"/relative/path", ErrSyntax},
		{"http://example.com:99999/", ErrSyntax},
		{"http://example.com:65536/", ErrSyntax},
		{"http://", ErrHost},
		{"http://exa mple.com/", ErrSyntax},
		{"http://example.com:99999999/", ErrSyntax},
		{"http://example.com:abc/", ErrSyntax},
		{"http://%zz/", ErrSyntax},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.want)
		}
	}
}

func TestURL_Resolve(t *testing.T) {
	base := MustParse("http://www.cs.wisc.edu/~scal/dir/page.html?x=1")
	tests := []struct{ ref, want string }{
		{"other.html", "http://www.cs.wisc.edu/~scal/dir/other.html"},
		{"../up.html", "http://www.cs.wisc.edu/~scal/up.html"},
		{"/root", "http://www.cs.wisc.edu/root"},
		{"//Other.Host/x", "http://other.host/x"},
		{"?y=2", "http://www.cs.wisc.edu/~scal/dir/page.html?y=2"},
		{"HTTP://A.B:80", "http://a.b/"},
		{" sub/ ", "http://www.cs.wisc.edu/~scal/dir/sub/"},
	}
	for _, tt := range tests {
		got, err := base.Resolve(tt.ref)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.ref, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.ref, got, tt.want)
		}
	}
	if _, err := base.Resolve("mailto:x@y.z"); !errors.Is(err, ErrScheme) {
		t.Errorf("Resolve(mailto) error = %v, want ErrScheme", err)
	}
}

func TestURL_accessors(t *testing.T) {
	u := MustParse("https://Example.com:8443/a/b?c=d")
	if got := u.Scheme(); got != "https" {
		t.Errorf("Scheme = %q", got)
	}
	if got := u.Host(); got != "example.com:8443" {
		t.Errorf("Host = %q", got)
	}
	if got := u.Origin(); got != "https://example.com:8443" {
		t.Errorf("Origin = %q", got)
	}
	if got := u.Path(); got != "/a/b" {
		t.Errorf("Path = %q", got)
	}
	if got := u.Query(); got != "c=d" {
		t.Errorf("Query = %q", got)
	}
	if got := u.RequestURI(); got != "/a/b?c=d" {
		t.Errorf("RequestURI = %q", got)
	}
}

func TestURL_Extend(t *testing.T) {
	tests := []struct {
		in   string
		ext  Extension
		want string
	}{
		{"http://a.com/Dir/File.HTML?Q=%3a", EN1LowerPath, "http://a.com/dir/file.html?Q=%3A"},
		{"http://a.com/Dir/?Q=X%3a", EN2LowerQuery, "http://a.com/Dir/?q=x%3A"},
		{"http://a.com/dir/", EN3TrailingSlash, "http://a.com/dir"},
		{"http://a.com/", EN3TrailingSlash, "http://a.com/"},
		{"http://a.com/dir/index.htm", EN4IndexHTM, "http://a.com/dir/"},
		{"http://a.com/dir/INDEX.HTML", EN5IndexHTML, "http://a.com/dir/"},
		{"http://a.com/default.htm?x", EN6DefaultHTM, "http://a.com/?x"},
		{"http://a.com/myindex.html", EN5IndexHTML, "http://a.com/myindex.html"},
	}
	for _, tt := range tests {
		if got := MustParse(tt.in).Extend(tt.ext).String(); got != tt.want {
			t.Errorf("%s(%q) = %q, want %q", tt.ext, tt.in, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"http://a.com/b", "HTTP://X:80/../a?b#c", "https://bücher.de/%7e", "http://[::1]/", "http://a/%", "//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(u.String())
		if err != nil {
			t.Fatalf("normalized %q does not parse: %v", u, err)
		}
		if again != u {
			t.Fatalf("not idempotent: %q -> %q", u, again)
		}
		if u.Path() == "" || u.Path()[0] != '/' {
			t.Fatalf("path %q of %q", u.Path(), u)
		}
		_ = u.Extend(Extensions...)
	})
}

// FuzzURL_Resolve checks that a reference resolved against a normalized
// base is normalized, on the base's origin when the reference is a path,
// and that resolving an absolute normalized URL gives it back.
func FuzzURL_Resolve(f *testing.F) {
	for _, s := range [][2]string{
		{"http://a.com/b/c", "../d?e#f"},
		{"http://a.com/", "//B.com:80/x"},
		{"https://a.com/x/y", "./%7e/../z"},
		{"http://a.com/", "?q"},
		{"http://a.com/b", ""},
		{"http://a.com/b", "mailto:x@y"},
		{"http://[::1]:8080/", "/../../a/./b/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := Parse(base)
		if err != nil {
			return
		}
		u, err := b.Resolve(ref)
		if err != nil {
			return
		}
		again, err := Parse(u.String())
		if err != nil || again != u {
			t.Fatalf("%q resolved against %q = %q, which parses to %q, %v", ref, b, u, again, err)
		}
		if r := strings.TrimSpace(ref); strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "//") && u.Origin() != b.Origin() {
			t.Fatalf("path %q resolved against %q left its origin: %q", ref, b, u)
		}
		if abs, err := b.Resolve(u.String()); err != nil || abs != u {
			t.Fatalf("absolute %q resolved against %q = %q, %v", u, b, abs, err)
		}
	})
}

// FuzzURL_Extend checks that an extended normalization keeps a URL
// normalized and on its origin, and that lower-casing is idempotent.
func FuzzURL_Extend(f *testing.F) {
	for _, s := range []string{"http://a.com/Dir/INDEX.HTM?Q=%7a", "http://a.com/x//", "http://a.com/%c3%a9/default.htm", "http://a.com/index.html/"} {
		f.Add(s, uint8(0x3f))
	}
	f.Fuzz(func(t *testing.T, s string, mask uint8) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		var exts []Extension
		for i, e := range Extensions {
			if mask&(1<<i) != 0 {
				exts = append(exts, e)
			}
		}
		x := u.Extend(exts...)
		again, err := Parse(x.String())
		if err != nil || again != x {
			t.Fatalf("%q extended by %v = %q, which parses to %q, %v", u, exts, x, again, err)
		}
		if x.Origin() != u.Origin() {
			t.Fatalf("%q extended by %v = %q, on another origin", u, exts, x)
		}
		for _, e := range []Extension{EN1LowerPath, EN2LowerQuery} {
			if once := u.Extend(e); once.Extend(e) != once {
				t.Fatalf("%v not idempotent on %q: %q then %q", e, u, once, once.Extend(e))
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		_, _ = Parse("HTTP://www.CS.wisc.edu:80/~scal/./dir/../scal.html#top")
	}
}

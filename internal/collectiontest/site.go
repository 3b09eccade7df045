package collectiontest

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// crlf turns a header block written with LF into one written with CRLF.
func crlf(header string) string { return strings.ReplaceAll(header, "\n", "\r\n") }

// Site is a small collection in the stored layout, file name → content,
// with stored headers, a stored redirect, collisions, odd files and frames. Hosts a.test…d.test
// stand for the four department sites, m.test for the misc group.
var Site = map[string]string{
	"department/cornell/http:^^a.test^": crlf("MIME-Version: 1.0\nServer: CERN/3.0\nDate: Thursday, 16-Jan-97 16:59:15 GMT\nContent-Type: text/html\nContent-Length: 9999\nLast-Modified: Thursday, 09-Jan-97 21:08:04 GMT\n\n") +
		`<html><head><title>A home</title></head><body>
<!WA0><!WA0><a href="/people/">People</a>
<a href="courses">Courses</a>
<a href="http://a.test/moved">Moved</a>
<a href="/missing.html">Gone</a>
<a href="mailto:web@a.test">Mail</a>
<a href="/people/">People again</a>
<!-- <a href="/hidden.html">hidden</a> -->
<a href="notes.txt">Notes</a>
</body></html>
`,
	"department/texas/http:^^b.test^": "<html><body>B home, a bare body. <a href=\"http://a.test/\">A</a></body></html>\n",
	"department/washington/http:^^c.test^": "Date: Tue, 14 Jan 1997 23:12:51 GMT\nServer: Apache/1.0.3\nContent-type: text/html\nContent-length: 12\nLast-modified: Tue, 19 Nov 1996 16:04:00 GMT\n\n" +
		"<html><body>C home</body></html>\n",
	"department/wisconsin/http:^^d.test":      "<html><body>D home</body></html>\n",
	"department/cornell/http:^^a.test^about^": "<html><body>not the home page</body></html>\n",
	"faculty/cornell/http:^^a.test^people^index.html": crlf("Date: Tue, 14 Jan 1997 23:12:51 GMT\nContent-Type: text/html\n\n") +
		`<html><body><base href="http://a.test/people/x/"><a href="../bob.html">Bob</a></body></html>` + "\n",
	"student/cornell/http:^^a.test^people^bob.html": "<html><body>Bob <a href=\"/courses/cs1/index.html\">CS1</a></body></html>\n",
	"course/cornell/http:^^a.test^courses^":         "<html><body>Courses <a href=\"cs1/\">CS1</a></body></html>\n",
	"course/cornell/http:^^a.test^courses^cs1^":     "<html><body>CS1</body></html>\n",
	"other/cornell/http:^^a.test^moved": "WWW Alert:  Redirection response from server is not handled by this client\n" +
		crlf("Date: Fri, 04 Apr 1997 23:28:07 GMT\nServer: Apache/1.2b7\nLocation: http://a.test/people/bob.html\nConnection: close\nContent-type: text/html\n\n") +
		"<HTML><HEAD><TITLE>301 Moved Permanently</TITLE></HEAD><BODY>moved <A HREF=\"http://a.test/people/bob.html\">here</A></BODY></HTML>\n",
	"other/cornell/http:^^a.test^hidden.html":    "<html><body>hidden</body></html>\n",
	"other/cornell/http:^^a.test^notes.txt":      "Content-Type: text/plain\nServer: x\n\nsee <a href=\"/hidden.html\">this</a>\n",
	"other/cornell/http:^^a.test^docs^index.htm": "<html><body>docs</body></html>\n",
	// Collisions.
	"staff/misc/http:^^m.test^~x^":       "<html><body>x as staff</body></html>\n",
	"faculty/misc/http:^^M.TEST^%7Ex^":   "<html><body>x as faculty</body></html>\n",
	"other/misc/http:^^m.test^lab^":      "<html><body>lab as other</body></html>\n",
	"project/misc/http:^^m.test:80^lab^": "<html><body>lab as project</body></html>\n",
	"student/misc/http:^^m.test^~y^":     "<html><body>y in misc</body></html>\n",
	"student/texas/http:^^m.test^~y^":    "<html><body>y in texas</body></html>\n",
	// Odd files.
	"project/misc/ftp:^^ftp.m.test^pub^":  "ftp listing\n",
	"other/misc/file:^^m.test^x":          "file\n",
	"other/misc/http:^^m.test^robots.txt": "Content-Type: text/plain\n\nUser-agent: *\nDisallow:\n",
	"other/misc/http:^^m.test^garbled.html": crlf("MIME-Version: 1.0\nServer: CERN/3.0\nDate: Sundacp: No match.\n2:58:48 GMT\nContent-Type: text/html\nContent-Encoding: 8bit\nLast-Modified: Monday, 02-Sep-96 19:52:13 GMT\n\n") +
		"<html>garbled</html>\n",
	"project/misc/http:^^m.test^frames.html": `<html><frameset><frame src="left.html"></frameset>
<noframes><a href="noframes.html">no frames</a></noframes></html>
`,
	"other/misc/http:^^m.test^left.html":     "<html><body>left</body></html>\n",
	"other/misc/http:^^m.test^noframes.html": "<html><body>noframes</body></html>\n",
	"other/misc/http:^^m.test:8080^":         "<html><body>port 8080</body></html>\n",
}

// CRName is a file whose name ends in a carriage return, added to Site by
// SiteFiles (it cannot be a map key of Site without confusion).
const CRName = "student/misc/http:^^m.test^~z^\r"

// SiteFiles returns the site's files sorted by name.
func SiteFiles() [][2]string {
	var out [][2]string
	for name, data := range Site {
		out = append(out, [2]string{name, data})
	}
	out = append(out, [2]string{CRName, "<html><body>z</body></html>\n"})
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// WriteSiteDir writes the site as a folder and returns its path.
func WriteSiteDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range SiteFiles() {
		p := filepath.Join(dir, filepath.FromSlash(f[0]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// WriteSiteTar writes the site as a tar file, gzipped when zip is set, with
// "./" prefixes and folder entries as in the real archive.
func WriteSiteTar(t testing.TB, zip bool) string {
	t.Helper()
	name := "site.tar"
	if zip {
		name = "site.tgz"
	}
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var zw *gzip.Writer
	var tw *tar.Writer
	if zip {
		zw = gzip.NewWriter(f)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(f)
	}
	mod := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: mod}); err != nil {
		t.Fatal(err)
	}
	for _, file := range SiteFiles() {
		h := &tar.Header{Name: "./" + file[0], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(file[1])), ModTime: mod}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(file[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

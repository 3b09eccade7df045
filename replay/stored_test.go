package replay

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/scent-crawler/scent/internal/collectiontest"
)

func TestParseStored(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		status  int
		header  http.Header // nil for a bare body
		body    string
		dropped int
	}{
		{
			name:   "crlf headers",
			data:   "MIME-Version: 1.0\r\nServer: CERN/3.0\r\nContent-Type: text/html\r\nContent-Length: 5\r\nLast-Modified: Thursday, 09-Jan-97 21:08:04 GMT\r\n\r\n\n<p>x",
			status: 200,
			header: http.Header{"Mime-Version": {"1.0"}, "Server": {"CERN/3.0"}, "Content-Type": {"text/html"}, "Last-Modified": {"Thursday, 09-Jan-97 21:08:04 GMT"}},
			body:   "\n<p>x",
		},
		{
			name:   "lf headers, lower-case names",
			data:   "Date: Tue, 14 Jan 1997 23:12:51 GMT\nContent-type: text/plain\nContent-length: 2\n\nhi",
			status: 200,
			header: http.Header{"Date": {"Tue, 14 Jan 1997 23:12:51 GMT"}, "Content-Type": {"text/plain"}},
			body:   "hi",
		},
		{
			name:   "bare body",
			data:   "<html><body>x</body></html>\n",
			status: 200,
			body:   "<html><body>x</body></html>\n",
		},
		{
			name:   "body line with a colon but no known field",
			data:   "Institution: Somewhere\nName: Someone\n\nmore text\n",
			status: 200,
			body:   "Institution: Somewhere\nName: Someone\n\nmore text\n",
		},
		{
			name:   "no blank line after fields",
			data:   "Content-Type: text/html\nServer: x\n",
			status: 200,
			body:   "Content-Type: text/html\nServer: x\n",
		},
		{
			name:   "empty body",
			data:   "Content-Type: text/html\r\n\r\n",
			status: 200,
			header: http.Header{"Content-Type": {"text/html"}},
			body:   "",
		},
		{
			name:    "garbled lines dropped, encodings dropped",
			data:    "Server: CERN/3.0\r\nDate: Sundacp: No match.\r\n2:58:48 GMT\r\n: text/html\r\nContent-Encoding: 8bit\r\nContent-Transfer-Encoding: 8bit\r\nConnection: Keep-Alive\r\nKeep-Alive: timeout=15\r\n\r\nbody",
			status:  200,
			header:  http.Header{"Server": {"CERN/3.0"}, "Date": {"Sundacp: No match."}},
			body:    "body",
			dropped: 2,
		},
		{
			name:   "continuation line",
			data:   "Content-Type: text/html\nX-Note: one\n  two\nSet-Cookie: a=1\nSet-Cookie: b=2\n\nbody",
			status: 200,
			header: http.Header{"Content-Type": {"text/html"}, "X-Note": {"one two"}, "Set-Cookie": {"a=1", "b=2"}},
			body:   "body",
		},
		{
			name:   "alert redirect, permanent",
			data:   "WWW Alert:  Redirection response from server is not handled by this client\nDate: Wed, 19 Feb 1997 16:49:16 GMT\nLocation: http://x.test/a/\nContent-type: text/html\n\n<TITLE>301 Moved Permanently</TITLE>",
			status: 301,
			header: http.Header{"Date": {"Wed, 19 Feb 1997 16:49:16 GMT"}, "Location": {"http://x.test/a/"}, "Content-Type": {"text/html"}},
			body:   "<TITLE>301 Moved Permanently</TITLE>",
		},
		{
			name:   "redirect, temporary",
			data:   "Server: Apache/1.0.3\r\nLocation: /b\r\n\r\n<TITLE>302 Found</TITLE>",
			status: 302,
			header: http.Header{"Server": {"Apache/1.0.3"}, "Location": {"/b"}},
			body:   "<TITLE>302 Found</TITLE>",
		},
		{
			name:   "alert line alone",
			data:   "WWW Alert:  nothing follows",
			status: 200,
			body:   "WWW Alert:  nothing follows",
		},
		{
			name:   "header block too long",
			data:   "Content-Type: text/html\n" + strings.Repeat("X-Pad: 0123456789\n", 600) + "\nbody",
			status: 200,
			body:   "Content-Type: text/html\n" + strings.Repeat("X-Pad: 0123456789\n", 600) + "\nbody",
		},
		{
			name:   "empty input",
			data:   "",
			status: 200,
			body:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseStored([]byte(tt.data))
			if got.Status != tt.status {
				t.Errorf("Status = %d, want %d", got.Status, tt.status)
			}
			if string(got.Body) != tt.body {
				t.Errorf("Body = %q, want %q", got.Body, tt.body)
			}
			if got.Dropped != tt.dropped {
				t.Errorf("Dropped = %d, want %d", got.Dropped, tt.dropped)
			}
			if (got.Header == nil) != (tt.header == nil) {
				t.Fatalf("Header = %v, want %v", got.Header, tt.header)
			}
			if len(got.Header) != len(tt.header) {
				t.Errorf("Header = %v, want %v", got.Header, tt.header)
			}
			for k, want := range tt.header {
				if g := got.Header[k]; strings.Join(g, "|") != strings.Join(want, "|") {
					t.Errorf("Header[%s] = %q, want %q", k, g, want)
				}
			}
		})
	}
}

func FuzzParseStored(f *testing.F) {
	for _, s := range []string{
		"MIME-Version: 1.0\r\nContent-Type: text/html\r\nContent-Length: 3\r\n\r\nabc",
		"Date: x\nServer: y\n\nbody",
		"WWW Alert:  Redirection\nLocation: http://x/\n\n<TITLE>302 Found</TITLE>",
		"Server: a\r\n2:58:48 GMT\r\n: text/html\r\n  cont\r\n\r\n",
		"<html>bare</html>",
		"Content-Type: text/html\n",
		"\r\n\r\n",
		"A:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := ParseStored(data)
		if !bytes.HasSuffix(data, st.Body) || len(st.Body) > len(data) {
			t.Fatalf("body %q is not a suffix of the data", st.Body)
		}
		if st.Header == nil {
			if len(st.Body) != len(data) || st.Status != 200 {
				t.Fatalf("bare body must be the whole data with status 200, got %d bytes, status %d", len(st.Body), st.Status)
			}
			return
		}
		for k := range st.Header {
			if droppedFields[k] {
				t.Fatalf("field %s kept", k)
			}
			if k != http.CanonicalHeaderKey(k) {
				t.Fatalf("key %q not canonical", k)
			}
		}
		switch st.Status {
		case 200:
			if st.Header.Get("Location") != "" {
				t.Fatal("redirect with status 200")
			}
		case 301, 302:
			if st.Header.Get("Location") == "" {
				t.Fatalf("status %d without Location", st.Status)
			}
		default:
			t.Fatalf("status %d", st.Status)
		}
		// The header block is what precedes the body; parsing it again
		// with another body gives the same header.
		head := data[:len(data)-len(st.Body)]
		again := ParseStored(append(append([]byte(nil), head...), "other body"...))
		if len(again.Header) != len(st.Header) {
			t.Fatalf("header not stable: %v vs %v", st.Header, again.Header)
		}
	})
}

func BenchmarkParseStored(b *testing.B) {
	data := []byte(collectiontest.Site["department/cornell/http:^^a.test^"])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ParseStored(data)
	}
}

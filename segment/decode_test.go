package segment

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/unicode"
)

func TestDecode(t *testing.T) {
	enc := func(e interface {
		String(string) (string, error)
	}, s string) string {
		out, err := e.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	eucKR := func(s string) string { return enc(korean.EUCKR.NewEncoder(), s) }
	cp1252 := func(s string) string { return enc(charmap.Windows1252.NewEncoder(), s) }
	sjis := func(s string) string { return enc(japanese.ShiftJIS.NewEncoder(), s) }
	utf16le := func(s string) string {
		return enc(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder(), s)
	}

	tests := []struct {
		name, body, contentType string
		want, charset           string
	}{
		{"ascii undeclared", "<p>plain</p>", "", "<p>plain</p>", "utf-8"},
		{"utf-8 undeclared", "<p>café</p>", "text/html", "<p>café</p>", "utf-8"},
		{"utf-8 late non-ascii", pad(2000) + "é", "text/html", pad(2000) + "é", "utf-8"},
		{"invalid utf-8 means windows-1252", cp1252("<p>café – “x”</p>"), "text/html", "<p>café – “x”</p>", "windows-1252"},
		{"header charset", eucKR("<p>한국어</p>"), "text/html; charset=euc-kr", "<p>한국어</p>", "euc-kr"},
		{"header charset quoted and cased", eucKR("<p>한국어</p>"), `Text/HTML; Charset="EUC-KR"`, "<p>한국어</p>", "euc-kr"},
		{"ks_c_5601 label", eucKR("<p>한국어</p>"), "text/html; charset=ks_c_5601-1987", "<p>한국어</p>", "euc-kr"},
		{"latin-1 label", cp1252("<p>naïve €</p>"), "text/html; charset=ISO-8859-1", "<p>naïve €</p>", "windows-1252"},
		{"meta charset", `<meta charset="shift_jis">` + sjis("<p>日本語</p>"), "text/html", `<meta charset="shift_jis"><p>日本語</p>`, "shift_jis"},
		{"meta http-equiv", `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=euc-kr">` + eucKR("한국어"), "",
			`<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=euc-kr">한국어`, "euc-kr"},
		{"meta content without http-equiv is ignored", `<meta content="text/html; charset=euc-kr">` + cp1252("é"), "",
			`<meta content="text/html; charset=euc-kr">é`, "windows-1252"},
		{"header beats meta", `<meta charset="windows-1252">` + eucKR("한국어"), "text/html; charset=euc-kr",
			`<meta charset="windows-1252">한국어`, "euc-kr"},
		{"unknown header label falls back to meta", `<meta charset="euc-kr">` + eucKR("한국어"), "text/html; charset=x-bogus",
			`<meta charset="euc-kr">한국어`, "euc-kr"},
		{"meta utf-16 means utf-8", `<meta charset="utf-16">é`, "", `<meta charset="utf-16">é`, "utf-8"},
		{"meta after 1024 bytes is ignored", pad(1100) + `<meta charset="euc-kr">`, "", pad(1100) + `<meta charset="euc-kr">`, "utf-8"},
		{"utf-8 BOM beats header", "\xef\xbb\xbf<p>é</p>", "text/html; charset=windows-1252", "<p>é</p>", "utf-8"},
		{"utf-16 BOM", utf16le("<p>é 한</p>"), "", "<p>é 한</p>", "utf-16le"},
		{"invalid utf-8 declared", "<p>a\xffb</p>", "text/html; charset=utf-8", "<p>a\ufffdb</p>", "utf-8"},
		{"xhtml", "<p>x</p>", "application/xhtml+xml", "<p>x</p>", "utf-8"},
		{"octet-stream text is sniffed", "<html><p>x</p>", "application/octet-stream", "<html><p>x</p>", "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cs, err := Decode([]byte(tt.body), tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || cs != tt.charset {
				t.Errorf("Decode = %q, %q; want %q, %q", got, cs, tt.want, tt.charset)
			}
		})
	}
}

// pad returns n bytes of ASCII text.
func pad(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

func TestDecode_errors(t *testing.T) {
	tests := []struct {
		name, body, contentType string
		want                    error
	}{
		{"NUL in first KB", "<html>\x00</html>", "text/html", ErrBinary},
		{"NUL undeclared", "GIF89a\x01\x00\x01\x00", "", ErrBinary},
		{"image", "<html></html>", "image/jpeg", ErrBinary},
		{"zip", "PK\x03\x04", "application/zip", ErrBinary},
		{"sniffed control bytes", "\x1b\x02\x03 data", "", ErrBinary},
		{"replacement encoding", "<p>x</p>", "text/html; charset=csiso2022kr", ErrCharset},
		{"replacement encoding in meta", `<meta charset="hz-gb-2312"><p>x</p>`, "", ErrCharset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.body), tt.contentType)
			if !errors.Is(err, tt.want) {
				t.Errorf("Decode error = %v, want %v", err, tt.want)
			}
		})
	}
	// A NUL byte after the first KB does not make a page binary, nor a
	// stray one in a page of markup; either is replaced.
	for _, body := range []string{pad(1024) + "\x00", "<html><head><title>A page</title></head><body>\x00" + pad(200) + "</body></html>"} {
		got, _, err := Decode([]byte(body), "text/html")
		if err != nil || bytes.IndexByte(got, 0) >= 0 || !bytes.Contains(got, []byte("\uFFFD")) {
			t.Errorf("a stray NUL: %v, NUL left %v", err, bytes.IndexByte(got, 0) >= 0)
		}
	}
}

func TestParseContentType(t *testing.T) {
	tests := []struct{ in, mediaType, label string }{
		{"", "", ""},
		{"text/html", "text/html", ""},
		{"Text/HTML; charset=UTF-8", "text/html", "UTF-8"},
		{`text/html; foo=bar; charset="euc-kr"`, "text/html", "euc-kr"},
		{"text/html; charset=", "text/html", ""},
		{"text/html;charset='latin1';charset=utf-8", "text/html", "latin1"},
	}
	for _, tt := range tests {
		mt, label := parseContentType(tt.in)
		if mt != tt.mediaType || label != tt.label {
			t.Errorf("parseContentType(%q) = %q, %q; want %q, %q", tt.in, mt, label, tt.mediaType, tt.label)
		}
	}
}

func TestCharsetFromContent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"text/html; charset=euc-kr", "euc-kr"},
		{"text/html;CHARSET = 'Shift_JIS' ", "shift_jis"},
		{`text/html; charset="utf-8`, ""},
		{"text/html", ""},
		{"charsetx; charset=big5;", "big5"},
	}
	for _, tt := range tests {
		if got := charsetFromContent(tt.in); got != tt.want {
			t.Errorf("charsetFromContent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzDecode: whatever the body and its declared type, Decode returns
// valid UTF-8 without a NUL byte, or an error that says binary or
// charset.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("<html><body>café</body></html>"), "text/html; charset=utf-8")
	f.Add([]byte("<html><meta charset=shift_jis><body>\x93\xfa\x96\x7b</body></html>"), "text/html")
	f.Add([]byte("\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00"), "text/html")
	f.Add([]byte("<html>\x00</html>"), "")
	f.Add([]byte("GIF89a\x01\x00\x01\x00"), "application/octet-stream")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		out, _, err := Decode(body, contentType)
		if err != nil {
			if !errors.Is(err, ErrBinary) && !errors.Is(err, ErrCharset) {
				t.Fatalf("error %v is neither binary nor charset", err)
			}
			return
		}
		if !utf8.Valid(out) || bytes.IndexByte(out, 0) >= 0 {
			t.Fatalf("decoded %q: valid UTF-8 %v, NUL at %d", out, utf8.Valid(out), bytes.IndexByte(out, 0))
		}
	})
}

package segment

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// Errors returned by Decode and Split; match them with errors.Is.
var (
	// ErrBinary means the body is not text: its first 1024 bytes hold
	// NUL bytes (more than one in 64, or any when they do not sniff as
	// markup or text), its declared media type is not a text type, or it
	// has no usable media type and its bytes do not look like text.
	ErrBinary = errors.New("binary content")
	// ErrCharset means the body cannot be decoded with the encoding it
	// declares (such as ISO-2022-KR, which the WHATWG Encoding Standard maps
	// to its "replacement" encoding).
	ErrCharset = errors.New("undecodable charset")
)

// sniffLen is how much of a body is examined for NUL bytes and <meta>
// charset declarations.
const sniffLen = 1024

// nul is the NUL byte; a head with more than one in nulShare bytes is
// binary whatever it sniffs as.
var nul = []byte{0}

const nulShare = 64

// Decode converts an HTML or text body to UTF-8. contentType is the HTTP
// Content-Type header value, or "" when there was none.
//
// The encoding is, in order of precedence: the one named by a byte order
// mark; the charset parameter of contentType; the one declared by
// <meta charset> or <meta http-equiv="content-type"> within the first 1024
// bytes; UTF-8 when the whole body is valid UTF-8; windows-1252 otherwise.
// Labels are those of the WHATWG Encoding Standard, so "iso-8859-1" and
// "latin1" mean windows-1252, and a <meta> declaring UTF-16 means UTF-8.
// Invalid byte sequences, and the NUL bytes a page of text may hold,
// become U+FFFD.
//
// Decode returns the decoded bytes, which are body itself when it is
// already valid UTF-8, and the canonical name of the encoding used. It
// returns an error wrapping ErrBinary or ErrCharset when the body cannot be
// read as text.
func Decode(body []byte, contentType string) ([]byte, string, error) {
	out, name, err := decode(body, contentType)
	if err == nil && bytes.IndexByte(out, 0) >= 0 {
		out = bytes.ReplaceAll(out, nul, []byte("\uFFFD")) // as browsers do
	}
	return out, name, err
}

func decode(body []byte, contentType string) ([]byte, string, error) {
	mediaType, label := parseContentType(contentType)
	sniff := false
	switch {
	case mediaType == "" || mediaType == "application/octet-stream" || mediaType == "binary/octet-stream" ||
		mediaType == "application/unknown" || mediaType == "unknown/unknown":
		sniff = true
	case !textual(mediaType):
		return nil, "", fmt.Errorf("decode: content type %q: %w", mediaType, ErrBinary)
	}

	enc, name := bomEncoding(body)
	if enc == nil && label != "" {
		enc, name = charset.Lookup(label)
	}
	utf16 := name == "utf-16le" || name == "utf-16be"
	if !utf16 {
		head := body[:min(len(body), sniffLen)]
		if i := bytes.IndexByte(head, 0); i >= 0 {
			// A stray NUL in a page that sniffs as markup is replaced,
			// as browsers do; NULs in a binary format are many.
			if bytes.Count(head, nul)*nulShare > len(head) || !strings.HasPrefix(http.DetectContentType(head), "text/") {
				return nil, "", fmt.Errorf("decode: NUL byte at offset %d: %w", i, ErrBinary)
			}
		}

		if sniff {
			if ct := http.DetectContentType(body); !strings.HasPrefix(ct, "text/") {
				return nil, "", fmt.Errorf("decode: content sniffed as %q: %w", ct, ErrBinary)
			}
		}
	}
	if enc == nil {
		enc, name = metaEncoding(body[:min(len(body), sniffLen)])
	}
	if enc == nil {
		if utf8.Valid(body) {
			return body, "utf-8", nil
		}
		enc, name = charset.Lookup("windows-1252")
	}
	switch name {
	case "replacement":
		return nil, "", fmt.Errorf("decode: charset declared as the replacement encoding: %w", ErrCharset)
	case "utf-8":
		body = bytes.TrimPrefix(body, utf8BOM)
		if utf8.Valid(body) {
			return body, name, nil
		}
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, "", fmt.Errorf("decode %s: %v: %w", name, err, ErrCharset)
	}
	if name == "utf-16le" || name == "utf-16be" {
		out = bytes.TrimPrefix(out, utf8BOM)
	}
	return out, name, nil
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// bomEncoding returns the encoding named by a byte order mark at the start
// of body, or nil.
func bomEncoding(body []byte) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(body, utf8BOM):
		return charset.Lookup("utf-8")
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}):
		return charset.Lookup("utf-16be")
	case bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		return charset.Lookup("utf-16le")
	}
	return nil, ""
}

// textual reports whether a declared media type is a kind of text.
func textual(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"), strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/xml", mediaType == "application/json",
		mediaType == "application/javascript", mediaType == "application/ecmascript":
		return true
	}
	return false
}

// parseContentType returns the lower-cased media type and the charset
// parameter of a Content-Type value. It is lenient where
// mime.ParseMediaType is strict, because servers send malformed values
// ("text/html; charset=", "text/html;charset=`EUC-KR`", duplicates).
func parseContentType(v string) (mediaType, label string) {
	v = strings.TrimSpace(v)
	mt, params, _ := strings.Cut(v, ";")
	mediaType = strings.ToLower(strings.TrimSpace(mt))
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "charset") {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), "\"'`")
		if val != "" {
			return mediaType, val
		}
	}
	return mediaType, ""
}

// metaEncoding scans head for the first <meta> element that declares a
// known encoding, following the WHATWG prescan: a charset attribute, or
// http-equiv="content-type" with a content attribute naming a charset.
func metaEncoding(head []byte) (encoding.Encoding, string) {
	if !hasMeta(head) {
		return nil, ""
	}
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var cs, content string
			pragma := false
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "charset":
					if cs == "" {
						cs = string(v)
					}
				case "http-equiv":
					pragma = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
				case "content":
					if content == "" {
						content = string(v)
					}
				}
			}
			label := cs
			if label == "" && pragma {
				label = charsetFromContent(content)
			}
			if label == "" {
				continue
			}
			enc, name := charset.Lookup(label)
			if enc == nil {
				continue
			}
			switch name {
			case "utf-16le", "utf-16be":
				return charset.Lookup("utf-8")
			case "x-user-defined":
				return charset.Lookup("windows-1252")
			}
			return enc, name
		}
	}
}

// hasMeta reports whether head contains "<meta" in any case.
func hasMeta(head []byte) bool {
	for {
		i := bytes.IndexByte(head, '<')
		if i < 0 || len(head)-i < 5 {
			return false
		}
		if m := head[i+1 : i+5]; m[0]|0x20 == 'm' && m[1]|0x20 == 'e' && m[2]|0x20 == 't' && m[3]|0x20 == 'a' {
			return true
		}
		head = head[i+1:]
	}
}

// charsetFromContent extracts the charset named in a <meta content>
// value such as "text/html; charset=euc-kr".
func charsetFromContent(s string) string {
	low := strings.ToLower(s)
	for {
		i := strings.Index(low, "charset")
		if i < 0 {
			return ""
		}
		low = strings.TrimLeft(low[i+len("charset"):], " \t\n\f\r")
		if low == "" || low[0] != '=' {
			continue
		}
		low = strings.TrimLeft(low[1:], " \t\n\f\r")
		if low == "" {
			return ""
		}
		if q := low[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(low[1:], q)
			if end < 0 {
				return ""
			}
			return low[1 : 1+end]
		}
		end := strings.IndexAny(low, " \t\n\f\r;")
		if end < 0 {
			return low
		}
		return low[:end]
	}
}

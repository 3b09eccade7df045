package replay

import (
	"bytes"
	"net/http"
	"net/textproto"
)

// maxHeaderBlock is the longest header block ParseStored looks for; longer
// leading text is taken to be part of a bare body.
const maxHeaderBlock = 8 << 10

// alertPrefix starts the first line of files whose original crawler saw a
// redirect it did not follow; the response headers follow that line.
var alertPrefix = []byte("WWW Alert:")

// Stored is one stored file split into the response it records.
type Stored struct {
	// Status is 200, or 301/302 when the stored response was a redirect
	// (it has a Location header).
	Status int
	// Header holds the stored response headers with canonical keys, minus
	// those that described the original connection or encoding (see
	// ParseStored). It is nil for a bare body.
	Header http.Header
	// Body is the stored body, a sub-slice of the parsed data.
	Body []byte
	// Dropped counts lines of the header block that were not header fields
	// (the collection has a few lines garbled by the original crawler).
	Dropped int
}

// droppedFields are stored header fields that are not served again:
// Content-Length is recomputed from the body, the connection fields belonged
// to the original connection, and the bodies are stored decoded, so any
// Content-Encoding would be false.
var droppedFields = map[string]bool{
	"Content-Length":            true,
	"Connection":                true,
	"Keep-Alive":                true,
	"Transfer-Encoding":         true,
	"Content-Encoding":          true,
	"Content-Transfer-Encoding": true,
	"Proxy-Connection":          true,
	"Trailer":                   true,
	"Upgrade":                   true,
}

// responseFields are fields of which at least one must appear for a leading
// block of "Name: value" lines to be taken as response headers rather than
// as the start of a bare body.
var responseFields = map[string]bool{
	"Content-Type":   true,
	"Content-Length": true,
	"Date":           true,
	"Server":         true,
	"Last-Modified":  true,
	"Mime-Version":   true,
	"Location":       true,
}

// ParseStored splits a stored file into response headers and body. It never
// fails: data that does not start with a header block is a bare body.
//
// A header block starts at the first byte (or after a first line beginning
// "WWW Alert:"), consists of "Name: value" lines ending in CRLF or LF, ends
// at the first empty line within 8 KiB, and holds at least one of
// Content-Type, Content-Length, Date, Server, Last-Modified, MIME-Version or
// Location. Lines starting with a space or tab continue the previous value;
// other lines that are not fields are dropped and counted. Content-Length,
// Content-Encoding, Content-Transfer-Encoding and the hop-by-hop fields are
// removed. A block with a Location header is a stored redirect: status 302
// when the body says "302", "Found" or "Temporarily" in its title, else 301.
func ParseStored(data []byte) Stored {
	bare := Stored{Status: http.StatusOK, Body: data}
	rest := data
	if bytes.HasPrefix(rest, alertPrefix) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return bare
		}
		rest = rest[i+1:]
	}
	if _, _, ok := splitField(firstLine(rest)); !ok {
		return bare
	}
	var (
		h       = make(http.Header)
		last    string
		known   bool
		dropped int
		start   = len(data) - len(rest)
		off     = start
	)
	for {
		if off-start > maxHeaderBlock {
			return bare
		}
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return bare
		}
		line := data[off : off+i]
		off += i + 1
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if vs := h[last]; last != "" && len(vs) > 0 {
				cont := string(bytes.TrimSpace(line))
				if cont != "" {
					vs[len(vs)-1] += " " + cont
				}
				continue
			}
			dropped++
			continue
		}
		name, value, ok := splitField(line)
		if !ok {
			dropped++
			last = ""
			continue
		}
		key := textproto.CanonicalMIMEHeaderKey(string(name))
		if responseFields[key] {
			known = true
		}
		last = ""
		if droppedFields[key] {
			continue
		}
		h[key] = append(h[key], string(value))
		last = key
	}
	if !known {
		return bare
	}
	body := data[off:]
	st := Stored{Status: http.StatusOK, Header: h, Body: body, Dropped: dropped}
	if h.Get("Location") != "" {
		st.Status = redirectStatus(body)
	}
	return st
}

// firstLine returns b up to its first LF, without a trailing CR.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// splitField splits a "Name: value" line. The name must start with a letter
// and hold only letters, digits and '-' or '_'.
func splitField(line []byte) (name, value []byte, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return nil, nil, false
	}
	name = line[:i]
	if c := name[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return nil, nil, false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return nil, nil, false
		}
	}
	return name, bytes.TrimSpace(line[i+1:]), true
}

// redirectStatus guesses the status of a stored redirect from its body,
// whose title is what the original server said ("302 Moved Temporarily",
// "Found", "301 Moved Permanently", "Document moved").
func redirectStatus(body []byte) int {
	head := body
	if len(head) > 512 {
		head = head[:512]
	}
	for _, w := range [][]byte{[]byte("302"), []byte("Found"), []byte("Temporarily")} {
		if bytes.Contains(head, w) {
			return http.StatusFound
		}
	}
	return http.StatusMovedPermanently
}

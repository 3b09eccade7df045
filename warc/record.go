package warc

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// Version is the version line of the records a Writer makes.
const Version = "WARC/1.1"

// The record types of WARC 1.1.
const (
	TypeWarcinfo     = "warcinfo"
	TypeResponse     = "response"
	TypeResource     = "resource"
	TypeRequest      = "request"
	TypeMetadata     = "metadata"
	TypeRevisit      = "revisit"
	TypeConversion   = "conversion"
	TypeContinuation = "continuation"
)

// ProfileIdenticalPayload is the WARC-Profile of a revisit record whose
// payload is the same as that of the record it refers to.
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// Field is one named header field of a record.
type Field struct {
	Name  string
	Value string
}

// Header is the ordered list of a record's fields. Names compare without
// regard to case.
type Header []Field

// Get returns the value of the first field named name, or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Set replaces the value of the first field named name, or appends the
// field when there is none.
func (h *Header) Set(name, value string) {
	for i, f := range *h {
		if strings.EqualFold(f.Name, name) {
			(*h)[i].Value = value
			return
		}
	}
	*h = append(*h, Field{Name: name, Value: value})
}

// Add appends a field, even when one of the same name exists.
func (h *Header) Add(name, value string) {
	*h = append(*h, Field{Name: name, Value: value})
}

// Record is one WARC record.
type Record struct {
	// Version is the version line; empty means Version.
	Version string
	Header  Header
	Block   []byte
}

// Type returns the record's WARC-Type.
func (r *Record) Type() string { return r.Header.Get("WARC-Type") }

// ID returns the record's WARC-Record-ID.
func (r *Record) ID() string { return r.Header.Get("WARC-Record-ID") }

// TargetURI returns the record's WARC-Target-URI.
func (r *Record) TargetURI() string { return r.Header.Get("WARC-Target-URI") }

// NewRecord returns a record of type typ with a new WARC-Record-ID, the
// given WARC-Date and, when target is not empty, WARC-Target-URI.
func NewRecord(typ string, date time.Time, target string, block []byte) *Record {
	r := &Record{Version: Version, Block: block}
	r.Header.Add("WARC-Type", typ)
	r.Header.Add("WARC-Record-ID", NewID())
	r.Header.Add("WARC-Date", FormatDate(date))
	if target != "" {
		r.Header.Add("WARC-Target-URI", target)
	}
	return r
}

// NewID returns a new record identifier: a random (version 4) UUID URN in
// angle brackets.
func NewID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return FormatID(u)
}

// idPrefix and idSuffix enclose the UUID of a record identifier.
const (
	idPrefix = "<urn:uuid:"
	idSuffix = ">"
	idLen    = len(idPrefix) + 36 + len(idSuffix)
)

// FormatID returns the record identifier of the UUID u, as NewID makes
// them: "<urn:uuid:" and u in lowercase hexadecimal, grouped 8-4-4-4-12,
// then ">".
func FormatID(u [16]byte) string {
	const hexDigits = "0123456789abcdef"
	var b [idLen]byte
	n := copy(b[:], idPrefix)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[n] = '-'
			n++
		}
		b[n], b[n+1] = hexDigits[c>>4], hexDigits[c&0x0f]
		n += 2
	}
	copy(b[n:], idSuffix)
	return string(b[:])
}

// ParseID returns the UUID of a record identifier in the form FormatID
// makes (lowercase hexadecimal only), and whether id has that form; when
// it has, FormatID gives id back.
func ParseID(id string) (u [16]byte, ok bool) {
	if len(id) != idLen || id[:len(idPrefix)] != idPrefix || id[idLen-len(idSuffix):] != idSuffix {
		return u, false
	}
	s := id[len(idPrefix) : idLen-len(idSuffix)]
	for i, j := 0, 0; i < len(u); i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			if s[j] != '-' {
				return u, false
			}
			j++
		}
		hi, ok1 := lowerHex(s[j])
		lo, ok2 := lowerHex(s[j+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[i] = hi<<4 | lo
		j += 2
	}
	return u, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// FormatDate formats t as a WARC-Date: UTC, to the second, or to the
// microsecond when t has a fraction of a second.
func FormatDate(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05.000000Z")
}

// ParseDate parses a WARC-Date (a W3C ISO 8601 date in UTC, with or
// without a fraction of a second).
func ParseDate(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("warc date %q: %w", s, err)
	}
	return t, nil
}

var b32 = base32.StdEncoding

// sha1Prefix starts a SHA-1 digest.
const sha1Prefix = "sha1:"

// Digest returns the WARC digest of b: "sha1:" and the base32 SHA-1.
func Digest(b []byte) string {
	return FormatSHA1Digest(sha1.Sum(b))
}

// FormatSHA1Digest returns the WARC digest of the SHA-1 sum, as Digest
// makes them: "sha1:" and 32 characters of base32.
func FormatSHA1Digest(sum [sha1.Size]byte) string {
	return sha1Prefix + b32.EncodeToString(sum[:])
}

// ParseSHA1Digest returns the SHA-1 sum of a digest in the form
// FormatSHA1Digest makes, and whether d has that form; when it has,
// FormatSHA1Digest gives d back.
func ParseSHA1Digest(d string) (sum [sha1.Size]byte, ok bool) {
	if len(d) != len(sha1Prefix)+b32.EncodedLen(sha1.Size) || d[:len(sha1Prefix)] != sha1Prefix {
		return sum, false
	}
	n, err := b32.Decode(sum[:], []byte(d[len(sha1Prefix):]))
	if err != nil || n != sha1.Size || FormatSHA1Digest(sum) != d {
		return [sha1.Size]byte{}, false
	}
	return sum, true
}

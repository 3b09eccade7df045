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
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
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

// Digest returns the WARC digest of b: "sha1:" and the base32 SHA-1.
func Digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + b32.EncodeToString(sum[:])
}

package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Writer writes records to an io.Writer, each as a gzip member of its own
// unless Uncompressed is set. It is not safe for concurrent use.
type Writer struct {
	w io.Writer
	// Uncompressed writes plain records instead of gzip members.
	Uncompressed bool
	// Now stamps records without a WARC-Date; default time.Now.
	Now func() time.Time
	buf bytes.Buffer
	raw bytes.Buffer
	gz  *gzip.Writer
	n   int64
}

// NewWriter returns a Writer of compressed records to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Written returns the number of bytes written to the underlying writer.
func (w *Writer) Written() int64 { return w.n }

// Write writes one record and returns the number of bytes it took. It
// sets the fields a record needs when they are missing: WARC-Record-ID,
// WARC-Date and WARC-Block-Digest; Content-Length is always the length
// of the block. The record's header is updated in place.
func (w *Writer) Write(r *Record) (int64, error) {
	b, err := w.Encode(r)
	if err != nil {
		return 0, err
	}
	n, err := w.w.Write(b)
	w.n += int64(n)
	if err != nil {
		return int64(n), fmt.Errorf("write warc record: %w", err)
	}
	return int64(n), nil
}

// Encode returns the bytes Write would write for r, completing r's
// header the same way, without writing them. The slice is valid until
// the next call.
func (w *Writer) Encode(r *Record) ([]byte, error) {
	if err := w.complete(r); err != nil {
		return nil, err
	}
	w.buf.Reset()
	if w.Uncompressed {
		writeRecord(&w.buf, r)
		return w.buf.Bytes(), nil
	}
	if w.gz == nil {
		gz, err := gzip.NewWriterLevel(&w.buf, gzip.DefaultCompression)
		if err != nil {
			return nil, err
		}
		w.gz = gz
	} else {
		w.gz.Reset(&w.buf)
	}
	w.raw.Reset()
	writeRecord(&w.raw, r)
	if _, err := w.gz.Write(w.raw.Bytes()); err != nil {
		return nil, fmt.Errorf("compress warc record: %w", err)
	}
	if err := w.gz.Close(); err != nil {
		return nil, fmt.Errorf("compress warc record: %w", err)
	}
	return w.buf.Bytes(), nil
}

func (w *Writer) complete(r *Record) error {
	if r.Header.Get("WARC-Type") == "" {
		return errors.New("warc record without WARC-Type")
	}
	if r.Version == "" {
		r.Version = Version
	}
	// What a Reader would not read back as written is refused: a version
	// line that is not WARC/…, a line break inside a line, white space
	// around a value (which a Reader strips), a line or a header longer
	// than a Reader takes.
	if !strings.HasPrefix(r.Version, "WARC/") || strings.ContainsAny(r.Version, "\r\n") || len(r.Version) > maxLine {
		return fmt.Errorf("warc version line %q not allowed", clip(r.Version))
	}
	for _, f := range r.Header {
		if !validName(f.Name) || strings.ContainsAny(f.Value, "\r\n") || strings.Trim(f.Value, ows) != f.Value || len(f.Name)+2+len(f.Value) > maxLine {
			return fmt.Errorf("warc field %q: name or value not allowed", clip(f.Name))
		}
	}
	if r.Header.Get("WARC-Record-ID") == "" {
		r.Header.Set("WARC-Record-ID", NewID())
	}
	if r.Header.Get("WARC-Date") == "" {
		now := time.Now
		if w.Now != nil {
			now = w.Now
		}
		r.Header.Set("WARC-Date", FormatDate(now()))
	}
	r.Header.Set("Content-Length", strconv.Itoa(len(r.Block)))
	if r.Header.Get("WARC-Block-Digest") == "" {
		r.Header.Set("WARC-Block-Digest", Digest(r.Block))
	}
	if len(r.Header) > maxFields {
		return fmt.Errorf("warc record of %d fields, over the %d a reader takes", len(r.Header), maxFields)
	}
	return nil
}

// validName reports whether s is a field name: a token of RFC 9110.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

func writeRecord(b *bytes.Buffer, r *Record) {
	b.WriteString(r.Version)
	b.WriteString("\r\n")
	for _, f := range r.Header {
		b.WriteString(f.Name)
		b.WriteString(": ")
		b.WriteString(f.Value)
		b.WriteString("\r\n")
	}
	b.WriteString("\r\n")
	b.Write(r.Block)
	b.WriteString("\r\n\r\n")
}

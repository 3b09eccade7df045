package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrFormat is wrapped by the errors of input that is not WARC.
var ErrFormat = errors.New("not a valid WARC record")

// Limits of a Reader, against damaged or hostile input.
const (
	maxLine   = 64 << 10 // longest header line
	maxFields = 1024     // most fields in one header
)

// ows is the white space around a field value, which is not part of it.
const ows = " \t"

// Reader reads the records of a WARC file, gzip-compressed (one or more
// records per member) or not. It is not safe for concurrent use.
type Reader struct {
	// MaxBlock is the largest block accepted; longer records fail with an
	// error wrapping ErrFormat. Default 4 GiB.
	MaxBlock int64

	cr      countReader
	br      *bufio.Reader
	gz      *gzip.Reader
	member  *bufio.Reader // decompressed data of the open member
	kind    int           // 0 unknown, 1 gzip, 2 plain
	start   int64         // offset of the last record (of its member)
	end     int64         // offset after it
	started bool
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// NewReader returns a Reader of the records in r.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{}
	rd.cr.r = r
	rd.br = bufio.NewReaderSize(&rd.cr, 64<<10)
	return rd
}

// Offset returns where the record last returned by Next starts in the
// input: the offset of its gzip member in a compressed file.
func (r *Reader) Offset() int64 { return r.start }

// End returns the offset just after the record last returned by Next (of
// its gzip member when the member has been read to its end).
func (r *Reader) End() int64 { return r.end }

func (r *Reader) pos() int64 { return r.cr.n - int64(r.br.Buffered()) }

// Next returns the next record, or io.EOF after the last one. An
// incomplete or damaged record gives an error wrapping ErrFormat or
// io.ErrUnexpectedEOF; the Reader cannot go on after an error.
func (r *Reader) Next() (*Record, error) {
	if r.kind == 0 {
		b, err := r.br.Peek(2)
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read warc: %w", err)
		}
		r.kind = 2
		if len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
			r.kind = 1
		}
	}
	if r.kind == 2 {
		if _, err := r.br.Peek(1); err == io.EOF {
			return nil, io.EOF
		}
		r.start = r.pos()
		rec, err := r.parse(r.br)
		if err != nil {
			return nil, fmt.Errorf("warc record at offset %d: %w", r.start, err)
		}
		r.end = r.pos()
		return rec, nil
	}
	if r.member == nil {
		if _, err := r.br.Peek(1); err == io.EOF {
			return nil, io.EOF
		}
		r.start = r.pos()
		var err error
		if r.gz == nil {
			r.gz, err = gzip.NewReader(r.br)
		} else {
			err = r.gz.Reset(r.br)
		}
		if err != nil {
			return nil, fmt.Errorf("warc record at offset %d: gzip: %w", r.start, errUnexpected(err))
		}
		r.gz.Multistream(false)
		r.member = bufio.NewReaderSize(r.gz, 32<<10)
	}
	rec, err := r.parse(r.member)
	if err != nil {
		return nil, fmt.Errorf("warc record at offset %d: %w", r.start, err)
	}
	// The member ends here unless it holds more records; reading to its
	// end checks its length and checksum.
	if _, err := r.member.Peek(1); err != nil {
		if err != io.EOF {
			return nil, fmt.Errorf("warc record at offset %d: gzip: %w", r.start, errUnexpected(err))
		}
		r.member = nil
		r.end = r.pos()
	}
	return rec, nil
}

func errUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parse reads one record from br.
func (r *Reader) parse(br *bufio.Reader) (*Record, error) {
	line, err := readLine(br)
	for err == nil && line == "" { // blank lines between records are tolerated
		line, err = readLine(br)
	}
	if err != nil {
		return nil, errUnexpected(err)
	}
	if !strings.HasPrefix(line, "WARC/") {
		return nil, fmt.Errorf("%w: version line %q", ErrFormat, clip(line))
	}
	rec := &Record{Version: line}
	for {
		line, err := readLine(br)
		if err != nil {
			return nil, errUnexpected(err)
		}
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(rec.Header) == 0 {
				return nil, fmt.Errorf("%w: continuation line before any field", ErrFormat)
			}
			rec.Header[len(rec.Header)-1].Value += " " + strings.Trim(line, ows)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !validName(name) {
			return nil, fmt.Errorf("%w: header line %q", ErrFormat, clip(line))
		}
		if len(rec.Header) >= maxFields {
			return nil, fmt.Errorf("%w: more than %d fields", ErrFormat, maxFields)
		}
		rec.Header = append(rec.Header, Field{Name: name, Value: strings.Trim(value, ows)})
	}
	cl := rec.Header.Get("Content-Length")
	n, err := strconv.ParseInt(cl, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%w: Content-Length %q", ErrFormat, clip(cl))
	}
	max := r.MaxBlock
	if max <= 0 {
		max = 4 << 30
	}
	if n > max {
		return nil, fmt.Errorf("%w: block of %d bytes over the %d-byte limit", ErrFormat, n, max)
	}
	var block bytes.Buffer
	block.Grow(int(min(n, 1<<20)))
	if _, err := io.CopyN(&block, br, n); err != nil {
		return nil, errUnexpected(err)
	}
	rec.Block = block.Bytes()
	var end [4]byte
	if _, err := io.ReadFull(br, end[:]); err != nil {
		return nil, errUnexpected(err)
	}
	if string(end[:]) != "\r\n\r\n" {
		return nil, fmt.Errorf("%w: block not followed by CRLF CRLF", ErrFormat)
	}
	return rec, nil
}

// readLine reads one CRLF- (or LF-) terminated line without its end.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > maxLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", ErrFormat, maxLine)
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

package warc

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testDate = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func sampleRecords() []*Record {
	req := NewRecord(TypeRequest, testDate, "http://example.com/a", []byte("GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n"))
	req.Header.Add("Content-Type", "application/http; msgtype=request")
	resp := NewRecord(TypeResponse, testDate.Add(1500*time.Microsecond), "http://example.com/a",
		[]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>héllo\r\n\r\nworld</p>"))
	resp.Header.Add("Content-Type", "application/http; msgtype=response")
	resp.Header.Add("WARC-Concurrent-To", req.ID())
	meta := NewRecord(TypeMetadata, testDate, "http://example.com/a", FieldsBlock(Header{{"topic", "course"}, {"score", "0.9"}}))
	empty := NewRecord(TypeResource, testDate, "http://example.com/empty", nil)
	return []*Record{req, resp, meta, empty}
}

func TestWriter_Write_roundTrip(t *testing.T) {
	for _, plain := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Uncompressed = plain
		recs := sampleRecords()
		for _, r := range recs {
			if _, err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if w.Written() != int64(buf.Len()) {
			t.Errorf("Written %d, buffer %d", w.Written(), buf.Len())
		}
		rd := NewReader(bytes.NewReader(buf.Bytes()))
		var again bytes.Buffer
		w2 := NewWriter(&again)
		w2.Uncompressed = plain
		for i := 0; ; i++ {
			r, err := rd.Next()
			if err == io.EOF {
				if i != len(recs) {
					t.Fatalf("plain=%v: read %d records, wrote %d", plain, i, len(recs))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			want := recs[i]
			if r.Version != Version || r.Type() != want.Type() || r.ID() != want.ID() || !bytes.Equal(r.Block, want.Block) {
				t.Errorf("record %d: got %v %q, want %v %q", i, r.Header, r.Block, want.Header, want.Block)
			}
			if got := r.Header.Get("WARC-Block-Digest"); got != Digest(want.Block) {
				t.Errorf("record %d: block digest %s", i, got)
			}
			if _, err := w2.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(again.Bytes(), buf.Bytes()) {
			t.Errorf("plain=%v: writing the records read does not give the same bytes", plain)
		}
	}
}

func TestReader_Offset(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var offs []int64
	for _, r := range sampleRecords() {
		offs = append(offs, w.Written())
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	rd := NewReader(bytes.NewReader(buf.Bytes()))
	for i, off := range offs {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		if rd.Offset() != off {
			t.Errorf("record %d at %d, want %d", i, rd.Offset(), off)
		}
		// Each member reads alone from its offset.
		one := NewReader(bytes.NewReader(buf.Bytes()[off:]))
		if _, err := one.Next(); err != nil {
			t.Errorf("record %d from its offset: %v", i, err)
		}
	}
}

// TestWriter_Write_refusesBadFields: what a Reader would refuse or read
// back otherwise is not written.
func TestWriter_Write_refusesBadFields(t *testing.T) {
	w := NewWriter(io.Discard)
	res := Field{"WARC-Type", "resource"}
	many := Header{res}
	for i := range maxFields {
		many.Add(fmt.Sprintf("X-%d", i), "v")
	}
	for i, r := range []*Record{
		{Header: Header{{"Content-Type", "x"}}},
		{Header: Header{res, {"Bad Name", "x"}}},
		{Header: Header{res, {"X", "a\r\nWARC-Type: y"}}},
		{Version: "0", Header: Header{res}},
		{Version: "WARC/1.1\r\nX: y", Header: Header{res}},
		{Header: Header{res, {"X", " padded"}}},
		{Header: Header{res, {"X", "padded\t"}}},
		{Header: Header{res, {"X", strings.Repeat("x", maxLine)}}},
		{Header: many},
	} {
		if _, err := w.Write(r); err == nil {
			t.Errorf("record %d (version %.20q, %d fields): no error", i, r.Version, len(r.Header))
		}
	}
}

func TestReader_Next_truncated(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range sampleRecords() {
		if _, err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	data := buf.Bytes()
	for cut := 1; cut < len(data); cut++ {
		rd := NewReader(bytes.NewReader(data[:cut]))
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrFormat) {
					t.Fatalf("cut %d: %v", cut, err)
				}
				break
			}
		}
	}
}

func TestDir_rotateAndRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := OpenDir(ctx, DirConfig{Path: dir, MaxFileSize: 600, Info: Header{{"software", "scent test"}}, Now: func() time.Time { return testDate }})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if err := d.Write(ctx, sampleRecords()...); err != nil {
			t.Fatal(err)
		}
	}
	// A crash: the open file stays open, with half a record at its end.
	open, _ := filepath.Glob(filepath.Join(dir, "*.open"))
	if len(open) != 1 {
		t.Fatalf("open files %v", open)
	}
	var tail bytes.Buffer
	if _, err := NewWriter(&tail).Write(sampleRecords()[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := d.f.Write(tail.Bytes()[:tail.Len()/2]); err != nil {
		t.Fatal(err)
	}
	d.f.Close()

	d2, err := OpenDir(ctx, DirConfig{Path: dir, MaxFileSize: 600, Now: func() time.Time { return testDate }})
	if err != nil {
		t.Fatal(err)
	}
	if len(d2.Repaired) != 1 || d2.Repaired[0].Cut != int64(tail.Len()/2) || d2.Repaired[0].Records != 5 {
		t.Errorf("repaired %+v, want 1 file, 5 records kept, %d bytes cut", d2.Repaired, tail.Len()/2)
	}
	if err := d2.Write(ctx, sampleRecords()...); err != nil {
		t.Fatal(err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := d2.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 11 {
		t.Errorf("%d files, want 11: %v", len(files), files)
	}
	total := 0
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rd := NewReader(bytes.NewReader(b))
		for n := 0; ; n++ {
			r, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if n == 0 && (r.Type() != TypeWarcinfo || r.Header.Get("WARC-Filename") != filepath.Base(f)) {
				t.Errorf("%s starts with %s %s", f, r.Type(), r.Header.Get("WARC-Filename"))
			}
			total++
		}
		if i > 0 && f <= files[i-1] {
			t.Errorf("file names out of order: %v", files)
		}
	}
	if total != 11*5 {
		t.Errorf("%d records in all, want %d", total, 11*5)
	}
}

func FuzzReader(f *testing.F) {
	var gz, plain bytes.Buffer
	w, wp := NewWriter(&gz), NewWriter(&plain)
	wp.Uncompressed = true
	for _, r := range sampleRecords() {
		w.Write(r)
		wp.Write(r)
	}
	f.Add(gz.Bytes())
	f.Add(plain.Bytes())
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("WARC/1.0\r\nWARC-Type: x\r\n continued\r\nContent-Length: 1\r\n\r\nx\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data))
		rd.MaxBlock = 1 << 20
		for i := 0; i < 1000; i++ {
			r, err := rd.Next()
			if err != nil {
				return
			}
			if n := r.Header.Get("Content-Length"); n == "" {
				t.Fatal("record without Content-Length accepted")
			}
		}
	})
}

func BenchmarkWriter_Write(b *testing.B) {
	body := bytes.Repeat([]byte("<p>some page text with words</p>\n"), 300)
	w := NewWriter(io.Discard)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := NewRecord(TypeResponse, testDate, "http://example.com/", body)
		if _, err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReader_Next(b *testing.B) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	body := bytes.Repeat([]byte("<p>some page text with words</p>\n"), 300)
	for i := 0; i < 100; i++ {
		w.Write(NewRecord(TypeResponse, testDate, "http://example.com/", body))
	}
	b.SetBytes(int64(len(body) * 100))
	for b.Loop() {
		rd := NewReader(bytes.NewReader(buf.Bytes()))
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
		}
	}
}

func TestParseID(t *testing.T) {
	for range 100 {
		id := NewID()
		u, ok := ParseID(id)
		if !ok || FormatID(u) != id {
			t.Fatalf("ParseID(%q) = %x %v", id, u, ok)
		}
		if want := fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]); id != want {
			t.Fatalf("NewID %q, want %q", id, want)
		}
	}
	for _, id := range []string{"", "<urn:uuid:0123ABCD-0000-4000-8000-000000000000>", "<urn:uuid:0123abcd-0000-4000-8000-000000000000",
		"<urn:uuid:0123abcd00000-4000-8000-000000000000>", "<urn:uuid:0123abcd-0000-4000-8000-00000000000g>", "<urn:uuid:0123abcd-0000-4000-8000-0000000000000>"} {
		if u, ok := ParseID(id); ok {
			t.Errorf("ParseID(%q) = %x, want none", id, u)
		}
	}
}

func TestParseSHA1Digest(t *testing.T) {
	d := Digest([]byte("<p>same</p>"))
	sum, ok := ParseSHA1Digest(d)
	if !ok || sum != sha1.Sum([]byte("<p>same</p>")) || FormatSHA1Digest(sum) != d {
		t.Fatalf("ParseSHA1Digest(%q) = %x %v", d, sum, ok)
	}
	for _, d := range []string{"", "sha1:", "sha256:" + d[5:], "SHA1:" + d[5:], strings.ToLower(d), d + "=", d[:len(d)-1], d[:20] + "\n" + d[21:]} {
		if sum, ok := ParseSHA1Digest(d); ok {
			t.Errorf("ParseSHA1Digest(%q) = %x, want none", d, sum)
		}
	}
}

func FuzzParseID(f *testing.F) {
	f.Add(NewID())
	f.Add("<urn:uuid:0123ABCD-0000-4000-8000-000000000000>")
	f.Fuzz(func(t *testing.T, id string) {
		if u, ok := ParseID(id); ok && FormatID(u) != id {
			t.Errorf("ParseID(%q) = %x, formatted %q", id, u, FormatID(u))
		}
	})
}

func FuzzParseSHA1Digest(f *testing.F) {
	f.Add(Digest(nil))
	f.Add("sha1:" + strings.Repeat("A", 31) + "=")
	f.Fuzz(func(t *testing.T, d string) {
		if sum, ok := ParseSHA1Digest(d); ok && FormatSHA1Digest(sum) != d {
			t.Errorf("ParseSHA1Digest(%q) = %x, formatted %q", d, sum, FormatSHA1Digest(sum))
		}
	})
}

// FuzzWriter_roundTrip writes a record with an arbitrary field, version
// and block, compressed and plain: a record the Writer accepts must read
// back with the same version, fields and block, and a record read must
// write back to the same bytes.
func FuzzWriter_roundTrip(f *testing.F) {
	f.Add("WARC/1.1", "WARC-Target-URI", "http://example.com/a", []byte("HTTP/1.1 200 OK\r\n\r\nhi"))
	f.Add("", "X-Note", "a value: with a colon", []byte{})
	f.Add("WARC/1.0", "Content-Type", "application/warc-fields", []byte("a: b\r\n"))
	f.Add("WARC/1.1", "X-Title", "caf\u00e9\u00a0", []byte(nil)) // a no-break space is no white space of the format
	f.Fuzz(func(t *testing.T, version, name, value string, block []byte) {
		for _, plain := range []bool{false, true} {
			r := NewRecord(TypeResource, testDate, "http://example.com/r", block)
			r.Version = version
			r.Header.Add(name, value)
			var buf bytes.Buffer
			w := NewWriter(&buf)
			w.Uncompressed = plain
			if _, err := w.Write(r); err != nil {
				return
			}
			rd := NewReader(bytes.NewReader(buf.Bytes()))
			got, err := rd.Next()
			if err != nil {
				t.Fatalf("plain=%v: record written (version %q, %q: %q) does not read back: %v", plain, r.Version, name, value, err)
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Fatalf("plain=%v: after the one record written: %v, want io.EOF", plain, err)
			}
			if got.Version != r.Version || !bytes.Equal(got.Block, r.Block) || fmt.Sprint(got.Header) != fmt.Sprint(r.Header) {
				t.Fatalf("plain=%v: read %q %q %q, wrote %q %q %q", plain, got.Version, got.Header, got.Block, r.Version, r.Header, r.Block)
			}
			var again bytes.Buffer
			w2 := NewWriter(&again)
			w2.Uncompressed = plain
			if _, err := w2.Write(got); err != nil {
				t.Fatalf("plain=%v: record read does not write back: %v", plain, err)
			}
			if !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Fatalf("plain=%v: record read writes back to other bytes", plain)
			}
		}
	})
}

package deflate

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Writers compresses with DEFLATE at one level against one preset
// dictionary (nil: none). Its methods may be called from any number of
// goroutines; it keeps at most its capacity of idle writers.
type Writers struct {
	level int
	dict  []byte
	idle  chan *Writer
}

// Writer is a DEFLATE writer of Writers, for a stream written in parts.
type Writer struct {
	fw  *flate.Writer
	dst sink
}

// sink is where a Writer's output goes: an idle writer points nowhere, so
// that it keeps no output of its last stream alive.
type sink struct{ w io.Writer }

func (s *sink) Write(p []byte) (int, error) { return s.w.Write(p) }

// Write compresses p.
func (w *Writer) Write(p []byte) (int, error) { return w.fw.Write(p) }

// Close ends the stream, writing what is buffered.
func (w *Writer) Close() error { return w.fw.Close() }

// NewWriters returns Writers at level (1 to 9) with dict, keeping up to
// capacity idle writers. It panics on a level flate refuses.
func NewWriters(level int, dict []byte, capacity int) *Writers {
	if _, err := flate.NewWriterDict(io.Discard, level, dict); err != nil {
		panic("deflate: " + err.Error())
	}
	return &Writers{level: level, dict: dict, idle: make(chan *Writer, capacity)}
}

// Append appends b compressed to dst and returns the extended slice.
func (ws *Writers) Append(dst, b []byte) []byte {
	buf := bytes.NewBuffer(dst)
	w := ws.Get(buf)
	_, _ = w.Write(b)
	_ = w.Close()
	ws.Put(w)
	return buf.Bytes()
}

// Get returns a writer compressing into dst. Give it back with Put once
// it is closed.
func (ws *Writers) Get(dst io.Writer) *Writer {
	select {
	case w := <-ws.idle:
		w.dst.w = dst
		w.fw.Reset(&w.dst) // keeps the dictionary
		return w
	default:
		w := &Writer{dst: sink{dst}}
		w.fw, _ = flate.NewWriterDict(&w.dst, ws.level, ws.dict) // the level was checked
		return w
	}
}

// Put keeps w, closed, for a later Get, unless capacity writers are
// idle already.
func (ws *Writers) Put(w *Writer) {
	w.dst.w = nil
	select {
	case ws.idle <- w:
	default:
	}
}

// AppendSmall appends b compressed against dict to dst, without a
// writer: the encoder keeps no tables between calls, which suits inputs
// of a few kilobytes at most (a writer's reset costs more than they
// do). Only the last 8 KiB of dict are used (flate.StatelessDeflate).
func AppendSmall(dst, b, dict []byte) []byte {
	buf := bytes.NewBuffer(dst)
	_ = flate.StatelessDeflate(buf, b, true, dict) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// Inflate decompresses a DEFLATE stream made against dict (or without a
// dictionary), reading at most limit bytes of output (0: no limit); it
// fails when the output is longer.
func Inflate(b, dict []byte, limit int64) ([]byte, error) {
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b), dict); err != nil {
		return nil, err
	}
	var src io.Reader = r
	if limit > 0 {
		src = io.LimitReader(r, limit+1)
	}
	out := bytes.NewBuffer(make([]byte, 0, 3*len(b)+64))
	_, err := out.ReadFrom(src)
	if err == nil && limit > 0 && int64(out.Len()) > limit {
		err = ErrTooLong
	}
	return out.Bytes(), err
}

// readers are DEFLATE readers reset for each Inflate: a reader is tens
// of kilobytes of window and tables, made once rather than per call (a
// page's text, links and exchanges are each read through one).
var readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// ErrTooLong is Inflate's error for output beyond its limit.
var ErrTooLong = errors.New("deflate: output beyond its limit")

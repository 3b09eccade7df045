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
	idle  chan *flate.Writer
}

// NewWriters returns Writers at level (1 to 9) with dict, keeping up to
// capacity idle writers. It panics on a level flate refuses.
func NewWriters(level int, dict []byte, capacity int) *Writers {
	if _, err := flate.NewWriterDict(io.Discard, level, dict); err != nil {
		panic("deflate: " + err.Error())
	}
	return &Writers{level: level, dict: dict, idle: make(chan *flate.Writer, capacity)}
}

// Append appends b compressed to dst and returns the extended slice.
func (ws *Writers) Append(dst, b []byte) []byte {
	var w *flate.Writer
	buf := bytes.NewBuffer(dst)
	select {
	case w = <-ws.idle:
		w.Reset(buf) // keeps the dictionary
	default:
		w, _ = flate.NewWriterDict(buf, ws.level, ws.dict)
	}
	_, _ = w.Write(b)
	_ = w.Close()
	select {
	case ws.idle <- w:
	default:
	}
	return buf.Bytes()
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

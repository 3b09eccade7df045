package replay

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/s2"
)

// body is a stored body kept compressed with S2, a fast LZ77 format: the
// pages of a collection take about half their size in memory (WebKB's
// 41 MB, 20 MB), and each is decompressed, at gigabytes a second, when
// it is served or read.
type body struct {
	z    []byte // the S2 block; nil for an empty body
	size int
}

// compressAll compresses raw[i] into dst[i].body, on every CPU.
func compressAll(dst []*Page, raw [][]byte) {
	var wg sync.WaitGroup
	next := make(chan int, len(raw))
	for i := range raw {
		next <- i
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), len(raw)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []byte
			for i := range next {
				dst[i].body, scratch = compressBody(raw[i], scratch)
			}
		}()
	}
	wg.Wait()
}

// compressBody returns b compressed, and scratch, the encoder's
// buffer, to be given again: the body keeps only the bytes it needs.
func compressBody(b, scratch []byte) (body, []byte) {
	if len(b) == 0 {
		return body{}, scratch
	}
	if n := s2.MaxEncodedLen(len(b)); cap(scratch) < n {
		scratch = make([]byte, n)
	}
	z := s2.Encode(scratch[:cap(scratch)], b)
	return body{z: bytes.Clone(z), size: len(b)}, scratch
}

// bytes returns the body, a new slice.
func (b body) bytes() []byte {
	if b.size == 0 {
		return nil
	}
	out, err := s2.Decode(make([]byte, b.size), b.z)
	if err != nil || len(out) != b.size {
		// The block was made from these bytes in memory.
		panic(fmt.Sprintf("replay: stored body does not decompress: %v", err))
	}
	return out
}

var serveBuffers = sync.Pool{New: func() any { return new([]byte) }}

// writeTo writes the body to w.
func (b body) writeTo(w io.Writer) error {
	if b.size == 0 {
		return nil
	}
	buf := serveBuffers.Get().(*[]byte)
	defer serveBuffers.Put(buf)
	if cap(*buf) < b.size {
		*buf = make([]byte, b.size)
	}
	out, err := s2.Decode((*buf)[:b.size], b.z)
	if err != nil {
		panic(fmt.Sprintf("replay: stored body does not decompress: %v", err))
	}
	_, err = w.Write(out)
	return err
}

package deflate

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestWriters_roundTrip(t *testing.T) {
	dict := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><head><title>")
	ws := NewWriters(3, dict, 2)
	in := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><head><title>home page</title>" + strings.Repeat(" and more", 50))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				z := ws.Append(nil, in)
				if len(z) >= len(in)/4 {
					t.Errorf("%d bytes compressed to %d", len(in), len(z))
					return
				}
				out, err := Inflate(z, dict, 0)
				if err != nil || !bytes.Equal(out, in) {
					t.Errorf("round trip: %v, %q", err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(ws.idle); n > 2 {
		t.Errorf("%d idle writers kept, capacity 2", n)
	}
}

func TestWriters_dictionaryUsed(t *testing.T) {
	dict := []byte("GET / HTTP/1.1\r\nHost: www.\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n")
	in := []byte("GET /~smith/courses/cs101.html HTTP/1.1\r\nHost: www.cs.cornell.edu\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n")
	ws := NewWriters(3, dict, 1)
	for i := 0; i < 2; i++ { // a new writer, then a reused one
		with := ws.Append(nil, in)
		without := NewWriters(3, nil, 1).Append(nil, in)
		if len(with) >= len(without)/2 {
			t.Errorf("with the dictionary %d bytes, without %d", len(with), len(without))
		}
		if out, err := Inflate(with, dict, 0); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip: %v", err)
		}
		if _, err := Inflate(with, nil, 0); err == nil {
			t.Error("a stream made against a dictionary inflated without it")
		}
	}
}

func TestWriters_appends(t *testing.T) {
	ws := NewWriters(6, nil, 1)
	z := ws.Append([]byte("prefix"), []byte("text"))
	if !bytes.HasPrefix(z, []byte("prefix")) {
		t.Fatalf("prefix lost: %q", z)
	}
	out, err := Inflate(z[len("prefix"):], nil, 0)
	if err != nil || string(out) != "text" {
		t.Fatalf("%q, %v", out, err)
	}
}

func TestInflate_limit(t *testing.T) {
	ws := NewWriters(6, nil, 1)
	z := ws.Append(nil, bytes.Repeat([]byte("a"), 1000))
	if _, err := Inflate(z, nil, 999); !errors.Is(err, ErrTooLong) {
		t.Errorf("1,000 bytes under a 999-byte limit: %v", err)
	}
	if out, err := Inflate(z, nil, 1000); err != nil || len(out) != 1000 {
		t.Errorf("at the limit: %d bytes, %v", len(out), err)
	}
	if _, err := Inflate([]byte{0xff, 0x00, 0x13}, nil, 0); err == nil {
		t.Error("garbage inflated")
	}
}

func TestNewWriters_badLevel(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("level 42 accepted")
		}
	}()
	NewWriters(42, nil, 1)
}

func BenchmarkAppend(b *testing.B) {
	ws := NewWriters(3, []byte("HTTP/1.1 404 Not Found\r\n"), 4)
	in := []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 57\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nnot found\n")
	b.ReportAllocs()
	for b.Loop() {
		ws.Append(nil, in)
	}
}

func TestAppendSmall(t *testing.T) {
	dict := []byte("GET / HTTP/1.1\r\nHost: www.\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n")
	in := []byte("GET /~smith/courses/cs101.html HTTP/1.1\r\nHost: www.cs.cornell.edu\r\nAccept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.1\r\nUser-Agent: scent/0.1 (focused crawler; +https://github.com/scent-crawler/scent)\r\n\r\n")
	z := AppendSmall([]byte("prefix"), in, dict)
	if !bytes.HasPrefix(z, []byte("prefix")) {
		t.Fatalf("prefix lost: %q", z)
	}
	z = z[len("prefix"):]
	if out, err := Inflate(z, dict, 0); err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip: %q, %v", out, err)
	}
	// As small as a writer's output at level 3, and the dictionary used.
	if w := NewWriters(3, dict, 1).Append(nil, in); len(z) > len(w)+len(w)/10 {
		t.Errorf("%d bytes without a writer, %d through one", len(z), len(w))
	}
	if without := AppendSmall(nil, in, nil); len(z) >= len(without)/2 {
		t.Errorf("with the dictionary %d bytes, without %d", len(z), len(without))
	}
	for _, b := range [][]byte{nil, {}, []byte("x"), bytes.Repeat([]byte("abc"), 5000)} {
		if out, err := Inflate(AppendSmall(nil, b, dict), dict, 0); err != nil || !bytes.Equal(out, b) {
			t.Errorf("round trip of %d bytes: %d bytes back, %v", len(b), len(out), err)
		}
	}
}

// TestWriters_stream compresses a stream written in parts through writers
// taken and given back, and checks that a writer given back points at no
// output of its last stream.
func TestWriters_stream(t *testing.T) {
	dict := []byte("HTTP/1.1 200 OK\r\n")
	ws := NewWriters(3, dict, 2)
	part := bytes.Repeat([]byte("HTTP/1.1 200 OK\r\n<p>a part of a stream</p>\n"), 1000)
	for round := range 3 {
		var out bytes.Buffer
		w := ws.Get(&out)
		for range 5 {
			if _, err := w.Write(part); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ws.Put(w)
		if w.dst.w != nil {
			t.Fatalf("round %d: an idle writer still points at its output", round)
		}
		got, err := Inflate(out.Bytes(), dict, 0)
		if err != nil || !bytes.Equal(got, bytes.Repeat(part, 5)) {
			t.Fatalf("round %d: %d bytes back, %v", round, len(got), err)
		}
	}
}

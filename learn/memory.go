package learn

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/scent-crawler/scent/urlnorm"
)

// A learner's memory (the links it remembers, their features and the
// outcomes of their pages' other links) is saved with its state when a
// crawl ends (MarshalMemory), so that the crawl, resumed, learns from the
// pages of the links that were waiting and rescores them, as it would
// have without the stop. While the crawl runs, the state saved every few
// hundred pages holds the memory once a minute
// (crawler.Config.LearnerMemoryEvery), the counts and models alone
// (MarshalState) otherwise: a crawl killed before its end resumes with
// the latest, and remembers the links it finds from then on besides.
//
// MarshalMemory's state is MarshalState's JSON, a newline, then the
// memory: a binary record (the vocabulary's words, the pages whose
// links are remembered, then the links, oldest first), varint-coded:
//
//	"scent-memory/1" topics
//	words:   n, then n strings
//	sources: n, then per page: URL, fetched, relevant per topic
//	links:   n, then per link: target, final, source index, depth,
//	         flags (and per topic), shared feature numbers, base, score
//	         and credit per topic (float64 bits), the features it was
//	         taught with per topic past the shared ones (when counted)
//
// Strings are a length and bytes; a link's flags hold counted and
// waiting, then per topic the source page's relevance and whether the
// link was pushed again since its value was written.
const memoryMagic = "scent-memory/1"

// MarshalMemory returns the learner's state (MarshalState) with its
// memory of the links it remembers (crawler.Rememberer). A link whose
// move is deferred is saved with the value the store holds, so that the
// learner restored from it moves the link at its next rescore; the
// deferred moves of links already forgotten are not saved (their
// entries keep the values they have).
func (l *Learner) MarshalMemory() ([]byte, error) {
	s, err := l.state()
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return l.encodeMemory(append(head, '\n')), nil
}

// encodeMemory appends the memory to dst.
func (l *Learner) encodeMemory(dst []byte) []byte {
	nt := len(l.topics)
	w := memWriter{b: slices.Grow(dst, l.memorySize())}
	w.str(memoryMagic)
	w.uint(uint64(nt))
	w.uint(uint64(len(l.words.words)))
	for _, word := range l.words.words {
		w.str(word)
	}
	links := l.remembered()
	index := make(map[urlnorm.URL]int, len(l.sources))
	var sources []urlnorm.URL
	for _, r := range links {
		if _, ok := index[r.source]; !ok {
			index[r.source] = len(sources)
			sources = append(sources, r.source)
		}
	}
	w.uint(uint64(len(sources)))
	for _, u := range sources {
		sib := l.sources[u]
		if sib == nil {
			sib = &siblings{relevant: make([]int, nt)}
		}
		w.str(u.String())
		w.uint(uint64(sib.fetched))
		for _, n := range sib.relevant {
			w.uint(uint64(n))
		}
	}
	w.uint(uint64(len(links)))
	var extra []string // a link's features past the shared ones
	for _, r := range links {
		w.str(r.target.String())
		w.str(r.final.String())
		w.uint(uint64(index[r.source]))
		w.int(int64(r.depth))
		var flags uint64
		if r.counted {
			flags |= 1
		}
		if r.waiting {
			flags |= 2
		}
		w.uint(flags)
		for _, rt := range r.topics {
			var f uint64
			if rt.srcRel {
				f |= 1
			}
			if rt.pushed {
				f |= 2
			}
			w.uint(f)
		}
		w.uint(uint64(len(r.shared)))
		for _, id := range r.shared {
			w.uint(uint64(id))
		}
		for _, rt := range r.topics {
			w.float(rt.base)
		}
		for _, rt := range r.topics {
			v := rt.score
			if rt.lag {
				v = rt.stored // the store's value: the move is deferred
			}
			w.float(v)
		}
		for _, rt := range r.topics {
			w.float(rt.credit)
		}
		if r.counted {
			for _, rt := range r.topics {
				extra := topicFeatures(extra[:0], rt.base, rt.srcRel, rt.taught)
				w.uint(uint64(len(extra)))
				for _, f := range extra {
					w.str(f)
				}
			}
		}
	}
	return w.b
}

// memorySize estimates the bytes of the memory, so that it is written
// into one buffer.
func (l *Learner) memorySize() int {
	n := 64
	for _, w := range l.words.words {
		n += len(w) + 2
	}
	for _, r := range l.ring {
		n += len(r.target.String()) + len(r.final.String()) + 2*len(r.shared) + 26*len(l.topics) + 16
		if r.counted {
			n += 48 * len(l.topics)
		}
	}
	return n + n/8
}

// remembered returns the remembered links that a lookup can still
// reach, oldest first (a link whose URL a redirect's record took over
// waits only for its turn to be forgotten).
func (l *Learner) remembered() []*record {
	ring := l.ring
	if len(ring) == l.opts.Memory {
		ring = append(append([]*record(nil), ring[l.ringNext:]...), ring[:l.ringNext]...)
	}
	out := make([]*record, 0, len(ring))
	for _, r := range ring {
		if l.links[r.target] == r || !r.final.IsZero() && l.links[r.final] == r {
			out = append(out, r)
		}
	}
	return out
}

// restoreMemory reads a memory written by encodeMemory into l, which
// remembers nothing yet.
func (l *Learner) restoreMemory(b []byte) error {
	nt := len(l.topics)
	r := memReader{b: b}
	if r.str() != memoryMagic || r.uint() != uint64(nt) {
		return errors.New("not a memory of these topics")
	}
	words := make([]string, r.count())
	id := make(map[string]uint32, len(words))
	for i := range words {
		words[i] = r.str()
		if _, dup := id[words[i]]; dup && r.err == nil {
			r.err = fmt.Errorf("feature %q numbered twice", words[i])
		}
		id[words[i]] = uint32(i)
	}
	sources := make([]urlnorm.URL, r.count())
	sibs := make(map[urlnorm.URL]*siblings, len(sources))
	for i := range sources {
		sources[i] = r.url()
		sib := &siblings{fetched: r.int32(), relevant: make([]int, nt)}
		for t := range nt {
			sib.relevant[t] = r.int32()
		}
		sibs[sources[i]] = sib
	}
	n := r.count()
	links := make(map[urlnorm.URL]*record, n)
	ring := make([]*record, 0, n)
	var extra []string // a link's features past the shared ones
	for range n {
		if r.err != nil {
			break
		}
		rec := newRecord(urlnorm.URL{}, r.url(), 0, nt)
		rec.final = r.optURL()
		if i := r.uint(); i < uint64(len(sources)) {
			rec.source = sources[i]
		} else if r.err == nil {
			r.err = errors.New("link of an unknown page")
		}
		rec.depth = int32(r.int())
		flags := r.uint()
		rec.counted, rec.waiting = flags&1 != 0, flags&2 != 0
		for t := range rec.topics {
			f := r.uint()
			rec.topics[t].srcRel = f&1 != 0
			rec.topics[t].pushed = f&2 != 0
		}
		rec.shared = make([]uint32, r.count())
		for i := range rec.shared {
			v := r.uint()
			if v >= uint64(len(words)) && r.err == nil {
				r.err = errors.New("feature number out of range")
			}
			rec.shared[i] = uint32(v)
		}
		for t := range rec.topics {
			rec.topics[t].base = r.float()
		}
		for t := range rec.topics {
			rec.topics[t].score = r.float()
		}
		for t := range rec.topics {
			rec.topics[t].credit = r.float()
		}
		if rec.counted {
			for t := range rec.topics {
				extra = extra[:0]
				for range r.count() {
					extra = append(extra, r.str())
				}
				rec.topics[t].taught = r.taught(extra, &rec.topics[t])
			}
		}
		if r.err != nil {
			break
		}
		if links[rec.target] != nil || rec.source.IsZero() {
			return errors.New("a link remembered twice, or of no page")
		}
		links[rec.target] = rec
		ring = append(ring, rec)
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return r.err
	}
	if drop := len(ring) - l.opts.Memory; drop > 0 {
		// Saved by a learner with more memory: the newest are kept.
		for _, rec := range ring[:drop] {
			delete(links, rec.target)
		}
		ring = ring[drop:]
	}
	for _, rec := range ring {
		if !rec.final.IsZero() && links[rec.final] == nil {
			links[rec.final] = rec // its page's record under the final URL too
		}
		sibs[rec.source].refs++
	}
	for u, sib := range sibs {
		if sib.refs == 0 {
			delete(sibs, u) // no link of its page is kept
		}
	}
	l.words = vocabulary{id: id, words: words}
	l.sources, l.links, l.ring, l.ringNext = sibs, links, ring, 0
	clear(l.proj)
	return nil
}

// memWriter appends varint-coded values to b.
type memWriter struct{ b []byte }

func (w *memWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *memWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *memWriter) float(v float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}
func (w *memWriter) str(s string) { w.uint(uint64(len(s))); w.b = append(w.b, s...) }

// memReader reads what memWriter wrote; the first error sticks and
// every later read gives zero values.
type memReader struct {
	b   []byte
	err error
}

func (r *memReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or damaged at %s", what)
	}
	r.b = nil
}

func (r *memReader) uint() uint64 { v, n := binary.Uvarint(r.b); return took(r, v, n) }
func (r *memReader) int() int64   { v, n := binary.Varint(r.b); return took(r, v, n) }

// took returns v, a number read in n bytes (n <= 0: none could be), and
// moves r past it.
func took[T uint64 | int64](r *memReader, v T, n int) T {
	if n <= 0 {
		r.fail("a number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int32 reads a count that must fit an int32.
func (r *memReader) int32() int {
	v := r.uint()
	if v > math.MaxInt32 {
		r.fail("a count")
		return 0
	}
	return int(v)
}

// count reads the length of a list, which cannot exceed the bytes left.
func (r *memReader) count() int {
	v := r.uint()
	if v > uint64(len(r.b)) {
		r.fail("a length")
		return 0
	}
	return int(v)
}

// taught returns the class of siblings of a link counted with features
// extra past its shared ones, which must be those of its topic's state
// rt (topicFeatures).
func (r *memReader) taught(extra []string, rt *linkTopic) siblingsClass {
	var want [3]string
	for c := range siblingsClass(len(siblingFeatures)) {
		if slices.Equal(extra, topicFeatures(want[:0], rt.base, rt.srcRel, c)) {
			return c
		}
	}
	r.fail("the features a link was taught with")
	return siblingsUnknown
}

func (r *memReader) float() float64 {
	if len(r.b) < 8 {
		r.fail("a value")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail("a value")
		return 0
	}
	return v
}

func (r *memReader) str() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *memReader) url() urlnorm.URL {
	u := r.optURL()
	if u.IsZero() {
		r.fail("a URL")
	}
	return u
}

// optURL reads a URL that may be empty.
func (r *memReader) optURL() urlnorm.URL {
	s := r.str()
	if s == "" || r.err != nil {
		return urlnorm.URL{}
	}
	u, err := urlnorm.Parse(s)
	if err != nil {
		r.fail("a URL")
		return urlnorm.URL{}
	}
	return u
}

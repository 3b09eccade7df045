package archive

import (
	"crypto/sha1"
	"encoding/binary"
	"hash/maphash"
	"time"

	"github.com/scent-crawler/scent/warc"
)

// memory is what a Writer remembers of the responses it archived with a
// payload, for the revisit records that refer to them: the origin of
// each, packed into an entry, found by its payload digest and by its URL.
//
// Each index holds at most max digests or URLs; one about to take more
// forgets them all first, as two maps of max keys each would (so the
// last entry of a URL archived again with a new payload may outlive its
// digest, or the other way round). The entries neither index refers to
// any more are dropped then: at most 2*max entries are kept, and max
// when no URL was archived twice.
type memory struct {
	max     int
	entries entries
	digests index // by payload digest
	urls    index // the last entry of each URL
	seed    maphash.Seed
	// odd holds, by entry, the origins whose record ID, date or digest
	// has not the form an entry packs: never so for the records
	// warc.NewRecord makes, but for a date too far from 1970 to count in
	// microseconds.
	odd map[uint32]origin
}

// entry is an origin packed: the record ID as its UUID, the digest as
// its SHA-1 sum, the WARC-Date in microseconds since 1970. An entry with
// odd set has its origin in memory.odd.
type entry struct {
	id   [16]byte
	sum  [sha1.Size]byte
	odd  bool
	date int64
	uri  string
}

// index finds entries by a 32-bit key of a string (a digest or a URL):
// keys holds the first string of each key, more the others, which are
// few (about n²/2³³ of n strings).
type index struct {
	keys map[uint32]uint32
	more map[string]uint32
}

func newMemory(max int) *memory {
	return &memory{max: max, seed: maphash.MakeSeed(),
		digests: index{keys: make(map[uint32]uint32)}, urls: index{keys: make(map[uint32]uint32)}}
}

// byDigest returns the origin of the entry whose payload digest is d.
func (m *memory) byDigest(d string) (origin, bool) {
	key, sum, ok := m.digestKey(d)
	i, found := m.digests.get(key, d, func(i uint32) bool { return m.hasDigest(i, d, sum, ok) })
	if !found {
		return origin{}, false
	}
	return m.origin(i), true
}

// byURL returns the origin of the last entry of uri.
func (m *memory) byURL(uri string) (origin, bool) {
	i, found := m.urls.get(m.urlKey(uri), uri, func(i uint32) bool { return m.entries.at(i).uri == uri })
	if !found {
		return origin{}, false
	}
	return m.origin(i), true
}

// remember adds o, whose digest it does not hold, as the last entry of
// its URL.
func (m *memory) remember(o origin) {
	forgot := false
	for _, x := range []*index{&m.digests, &m.urls} {
		if x.len() >= m.max {
			x.clear()
			forgot = true
		}
	}
	if forgot {
		m.compact()
	}
	id, okID := warc.ParseID(o.id)
	sum, okSum := warc.ParseSHA1Digest(o.digest)
	date, okDate := packDate(o.date)
	e := entry{id: id, sum: sum, date: date, uri: o.uri, odd: !okID || !okSum || !okDate}
	i := m.entries.add(e)
	if e.odd {
		if m.odd == nil {
			m.odd = make(map[uint32]origin)
		}
		m.odd[i] = o
	}
	key, sum, ok := m.digestKey(o.digest)
	m.digests.set(key, o.digest, i, func(j uint32) bool { return m.hasDigest(j, o.digest, sum, ok) })
	m.urls.set(m.urlKey(o.uri), o.uri, i, func(j uint32) bool { return m.entries.at(j).uri == o.uri })
}

// origin unpacks entry i.
func (m *memory) origin(i uint32) origin {
	e := m.entries.at(i)
	if e.odd {
		return m.odd[i]
	}
	return origin{id: warc.FormatID(e.id), uri: e.uri, date: warc.FormatDate(time.UnixMicro(e.date)), digest: warc.FormatSHA1Digest(e.sum)}
}

// digestKey returns the key of digest d: the first 4 bytes of its SHA-1
// sum when it has the form of warc.Digest (ok), else a hash of d.
func (m *memory) digestKey(d string) (key uint32, sum [sha1.Size]byte, ok bool) {
	if sum, ok = warc.ParseSHA1Digest(d); ok {
		return binary.LittleEndian.Uint32(sum[:4]), sum, true
	}
	return uint32(maphash.String(m.seed, d)), sum, false
}

func (m *memory) urlKey(uri string) uint32 { return uint32(maphash.String(m.seed, uri)) }

// hasDigest reports whether entry i has digest d, of sum when ok.
func (m *memory) hasDigest(i uint32, d string, sum [sha1.Size]byte, ok bool) bool {
	if e := m.entries.at(i); !e.odd {
		return ok && e.sum == sum
	}
	return m.odd[i].digest == d
}

// packDate returns the WARC-Date s in microseconds since 1970, and
// whether warc.FormatDate gives s back from them.
func packDate(s string) (int64, bool) {
	t, err := warc.ParseDate(s)
	if err != nil {
		return 0, false
	}
	us := t.UnixMicro()
	return us, warc.FormatDate(time.UnixMicro(us)) == s
}

// compact drops the entries no index refers to, renumbering the others.
func (m *memory) compact() {
	const none = ^uint32(0)
	to := make([]uint32, m.entries.n)
	for i := range to {
		to[i] = none
	}
	var kept entries
	var odd map[uint32]origin
	move := func(i uint32) uint32 {
		if to[i] == none {
			e := m.entries.at(i)
			to[i] = kept.add(*e)
			if e.odd {
				if odd == nil {
					odd = make(map[uint32]origin)
				}
				odd[to[i]] = m.odd[i]
			}
		}
		return to[i]
	}
	for _, x := range []*index{&m.digests, &m.urls} {
		for k, i := range x.keys {
			x.keys[k] = move(i)
		}
		for s, i := range x.more {
			x.more[s] = move(i)
		}
	}
	m.entries, m.odd = kept, odd
}

// get returns the entry of s, whose key is key; is reports whether an
// entry is that of s.
func (x *index) get(key uint32, s string, is func(uint32) bool) (uint32, bool) {
	i, ok := x.keys[key]
	if !ok {
		return 0, false
	}
	if is(i) {
		return i, true
	}
	i, ok = x.more[s]
	return i, ok
}

// set makes i the entry of s, whose key is key; is reports whether an
// entry is that of s.
func (x *index) set(key uint32, s string, i uint32, is func(uint32) bool) {
	if j, ok := x.keys[key]; !ok || is(j) {
		x.keys[key] = i
		return
	}
	if x.more == nil {
		x.more = make(map[string]uint32)
	}
	x.more[s] = i
}

func (x *index) len() int { return len(x.keys) + len(x.more) }

func (x *index) clear() {
	clear(x.keys)
	x.more = nil
}

// entryBlock is the number of entries in a block of entries (64 KiB).
const entryBlock = 1 << 10

// entries is a list of entries kept in blocks, so that it grows without
// copying and wastes at most a block.
type entries struct {
	blocks [][]entry
	n      int
}

// add appends e and returns its number.
func (l *entries) add(e entry) uint32 {
	if l.n%entryBlock == 0 {
		l.blocks = append(l.blocks, make([]entry, 0, entryBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, e)
	l.n++
	return uint32(l.n - 1)
}

// at returns entry i.
func (l *entries) at(i uint32) *entry { return &l.blocks[i/entryBlock][i%entryBlock] }

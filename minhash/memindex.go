package minhash

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// MemIndex is an in-memory Index for millions of pages. The zero value is an
// empty index ready to use; NewMemIndex sizes it in advance. It is safe for
// concurrent use: one mutex makes every check and its insert one step.
//
// Layout: pages are kept in insertion order in fixed-size chunks (their id
// and six features, 56 bytes); the slot number of a page is its insertion
// rank, which makes "earliest inserted" a comparison of slots. The NumKeys
// keys of every page live in one open-addressing table with linear probing
// that holds, per entry, an 8-bit tag of the key's hash and the 32-bit slot
// of the page; a tag match is confirmed against the page's stored features,
// so lookups never report false matches. A second table of the same shape
// finds a page's slot from its id. A page costs 150 to 180 bytes in all,
// depending on how full the tables are, against over 1 KB in Go maps of its
// 15 keys.
type MemIndex struct {
	mu       sync.RWMutex
	expected int          // pages to size the tables for
	chunks   []*pageChunk // pages by slot
	slots    int          // slots in use, live or removed
	live     int          // pages indexed
	dead     []uint64     // bit set of removed slots
	ndead    int
	keys     probeTable // keys → slot
	ids      probeTable // page ids → slot
}

var _ Index = (*MemIndex)(nil)

const (
	chunkBits = 14
	chunkSize = 1 << chunkBits

	// maxLoad is the share of table entries in use that triggers a rebuild.
	maxLoad = 0.85
	// growth is how much room a rebuild makes: after it the tables are at
	// maxLoad/growth.
	growth = 1.3
	// minPages is the smallest number of pages the tables are sized for.
	minPages = 64
	// maxSlots bounds slot numbers, which are stored in 32 bits.
	maxSlots = math.MaxUint32
)

// ErrIndexFull is returned, wrapped, when a MemIndex holds as many pages as
// its 32-bit slot numbers can count.
var ErrIndexFull = errors.New("min-hash index full")

type pageChunk struct {
	ids   [chunkSize]int64
	feats [chunkSize][NumFeatures]uint64
}

// probeTable is an open-addressing table of slots. A zero tag marks an empty
// entry; the tag of an occupied entry is a non-zero byte of its hash.
type probeTable struct {
	tags []uint8
	refs []uint32
	used int
}

func newProbeTable(n int) probeTable {
	return probeTable{tags: make([]uint8, n), refs: make([]uint32, n)}
}

// start returns the first entry to probe and the tag for hash h.
func (t *probeTable) start(h uint64) (pos uint64, tag uint8) {
	pos, _ = bits.Mul64(h, uint64(len(t.tags)))
	tag = uint8(h)
	if tag == 0 {
		tag = 1
	}
	return pos, tag
}

// add stores slot under hash h in the first free entry.
func (t *probeTable) add(h uint64, slot uint32) {
	pos, tag := t.start(h)
	n := uint64(len(t.tags))
	for t.tags[pos] != 0 {
		if pos++; pos == n {
			pos = 0
		}
	}
	t.tags[pos], t.refs[pos] = tag, slot
	t.used++
}

// full reports whether adding n more entries would pass maxLoad.
func (t *probeTable) full(n int) bool {
	return float64(t.used+n) > maxLoad*float64(len(t.tags))
}

// NewMemIndex returns an empty index with room for expectedPages pages
// before it first grows. Zero or negative means no expectation: the index
// starts small and grows by rebuilding, which costs time at every growth
// and up to 30% more memory than a right-sized one.
func NewMemIndex(expectedPages int) *MemIndex {
	x := &MemIndex{expected: max(expectedPages, 0)}
	x.mu.Lock()
	x.rebuild(0)
	x.mu.Unlock()
	return x
}

// Len returns the number of indexed pages.
func (x *MemIndex) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

func (x *MemIndex) page(slot uint32) (*pageChunk, uint32) {
	return x.chunks[slot>>chunkBits], slot & (chunkSize - 1)
}

func (x *MemIndex) isDead(slot uint32) bool {
	return x.dead[slot/64]>>(slot%64)&1 != 0
}

func idHash(id int64) uint64 {
	h := uint64(id) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}

// findKey returns the live page holding key number n with values a and b.
// At most one live page holds a key, because a page sharing a key with a
// live page is a duplicate and is not inserted.
func (x *MemIndex) findKey(n int, a, b uint64) (uint32, bool) {
	t := &x.keys
	size := uint64(len(t.tags))
	if size == 0 {
		return 0, false
	}
	i, j := pairs[n][0], pairs[n][1]
	pos, tag := t.start(keyHash(n, a, b))
	for {
		switch t.tags[pos] {
		case 0:
			return 0, false
		case tag:
			slot := t.refs[pos]
			c, k := x.page(slot)
			if c.feats[k][i] == a && c.feats[k][j] == b && !x.isDead(slot) {
				return slot, true
			}
		}
		if pos++; pos == size {
			pos = 0
		}
	}
}

// findID returns the slot of the live page id.
func (x *MemIndex) findID(id int64) (uint32, bool) {
	t := &x.ids
	size := uint64(len(t.tags))
	if size == 0 {
		return 0, false
	}
	pos, tag := t.start(idHash(id))
	for {
		switch t.tags[pos] {
		case 0:
			return 0, false
		case tag:
			slot := t.refs[pos]
			c, k := x.page(slot)
			if c.ids[k] == id && !x.isDead(slot) {
				return slot, true
			}
		}
		if pos++; pos == size {
			pos = 0
		}
	}
}

// earliest returns the earliest inserted live page sharing a key with f.
func (x *MemIndex) earliest(f *[NumFeatures]uint64) (uint32, bool) {
	best, found := uint32(0), false
	for n, p := range pairs {
		if slot, ok := x.findKey(n, f[p[0]], f[p[1]]); ok && (!found || slot < best) {
			best, found = slot, true
		}
	}
	return best, found
}

// CheckAndInsert implements Index.
func (x *MemIndex) CheckAndInsert(ctx context.Context, id int64, sig Signature) (int64, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if err := sig.Validate(); err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if !sig.Indexable() {
		return id, false, nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if slot, ok := x.earliest(&sig.Features); ok {
		c, k := x.page(slot)
		orig := c.ids[k]
		return orig, orig != id, nil
	}
	if _, ok := x.findID(id); ok {
		return 0, false, fmt.Errorf("insert page %d: %w", id, ErrIDInUse)
	}
	if err := x.insert(id, &sig.Features); err != nil {
		return 0, false, fmt.Errorf("insert page %d: %w", id, err)
	}
	return id, false, nil
}

// insert appends a page and its keys, growing the tables first if needed.
func (x *MemIndex) insert(id int64, f *[NumFeatures]uint64) error {
	if x.keys.full(NumKeys) || x.ids.full(1) || x.slots == maxSlots {
		x.rebuild(x.live + 1)
		if x.slots == maxSlots {
			return ErrIndexFull
		}
	}
	slot := uint32(x.slots)
	if int(slot>>chunkBits) == len(x.chunks) {
		x.chunks = append(x.chunks, new(pageChunk))
	}
	if int(slot/64) == len(x.dead) {
		x.dead = append(x.dead, 0)
	}
	c, k := x.page(slot)
	c.ids[k], c.feats[k] = id, *f
	x.slots++
	x.live++
	x.addKeys(slot, f)
	x.ids.add(idHash(id), slot)
	return nil
}

func (x *MemIndex) addKeys(slot uint32, f *[NumFeatures]uint64) {
	for n, p := range pairs {
		x.keys.add(keyHash(n, f[p[0]], f[p[1]]), slot)
	}
}

// rebuild drops removed pages, renumbers the rest in insertion order and
// rebuilds both tables with room for the expected pages, or for growth
// times the larger of pages and the live pages if that is more.
func (x *MemIndex) rebuild(pages int) {
	// Compact live pages in place; slots only move down.
	to := 0
	for s := 0; s < x.slots; s++ {
		if x.isDead(uint32(s)) {
			continue
		}
		if to != s {
			dc, dk := x.page(uint32(to))
			sc, sk := x.page(uint32(s))
			dc.ids[dk], dc.feats[dk] = sc.ids[sk], sc.feats[sk]
		}
		to++
	}
	x.slots, x.live, x.ndead = to, to, 0
	keep := (to + chunkSize - 1) / chunkSize
	clear(x.chunks[keep:])
	x.chunks = x.chunks[:keep]
	x.dead = make([]uint64, (to+63)/64)

	target := max(x.expected, minPages, int(float64(max(pages, x.live))*growth))
	x.keys = newProbeTable(int(float64(target*NumKeys)/maxLoad) + 1)
	x.ids = newProbeTable(int(float64(target)/maxLoad) + 1)
	for s := range to {
		c, k := x.page(uint32(s))
		x.addKeys(uint32(s), &c.feats[k])
		x.ids.add(idHash(c.ids[k]), uint32(s))
	}
}

// Lookup implements Index.
func (x *MemIndex) Lookup(ctx context.Context, sig Signature) (int64, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	if err := sig.Validate(); err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	if !sig.Indexable() {
		return 0, false, nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	slot, ok := x.earliest(&sig.Features)
	if !ok {
		return 0, false, nil
	}
	c, k := x.page(slot)
	return c.ids[k], true, nil
}

// Remove implements Index. The space of removed pages is reclaimed when the
// index next rebuilds, at the latest once removed pages outnumber live ones.
func (x *MemIndex) Remove(ctx context.Context, id int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("remove page %d: %w", id, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	slot, ok := x.findID(id)
	if !ok {
		return nil
	}
	x.dead[slot/64] |= 1 << (slot % 64)
	x.live--
	x.ndead++
	if x.ndead > x.live && x.ndead >= chunkSize {
		x.rebuild(0)
	}
	return nil
}

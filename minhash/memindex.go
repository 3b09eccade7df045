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
//
// Growth never stops the index for long. Most of its cost is not hashing
// but the operating system's first touch of the new tables' memory (tens
// of thousands of page faults for a million pages), so the next tables are
// allocated once the current ones are prepareAt full and made resident a
// little with every insert (touchStep entries). When the current tables
// fill up, the pages move into the next ones a few at a time, with each
// later insert (migrateStep pages), while lookups probe the new tables and
// then the old ones. The moving is done long before the new tables fill,
// so at most two generations of tables exist at once.
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

	// While the index grows, the slots below moveEnd are in oldKeys and
	// oldIDs, and those below moved also in keys and ids; slots from
	// moveEnd on are only in keys and ids. Not growing: moved == moveEnd.
	oldKeys, oldIDs probeTable
	moved, moveEnd  int

	// The tables of the next growth, allocated ahead; the entries below
	// keysTouched and idsTouched are resident.
	nextKeys, nextIDs       probeTable
	keysTouched, idsTouched int
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
	// migrateStep is how many pages move into the grown tables with each
	// insert. The new tables have room for growth times the pages, so the
	// move must be done within (growth-1)·pages inserts: any step above
	// 1/(growth-1) ≈ 3.3 is enough; a larger one frees the old tables
	// sooner at a few microseconds an insert.
	migrateStep = 8
	// prepareAt is the share of maxLoad at which the next tables are
	// allocated; from there to maxLoad, touchStep entries of each are made
	// resident with every insert. The next tables are about 23 entries a
	// page of the current capacity and the pages inserted in between a
	// tenth of it, so 230 entries an insert would do.
	prepareAt = 0.9
	touchStep = 1024
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

// holds reports whether the table, empty, has room at maxLoad for the
// entries of the given pages and of the pages inserted while they move in
// (a fifth more; moving them takes pages/migrateStep inserts).
func (t *probeTable) holds(pages, perPage int) bool {
	return float64(pages*perPage)*1.2 <= maxLoad*float64(len(t.tags))
}

// nearFull reports whether adding n more entries would pass prepareAt of
// maxLoad.
func (t *probeTable) nearFull(n int) bool {
	return float64(t.used+n) > prepareAt*maxLoad*float64(len(t.tags))
}

// touch writes to the entries from..from+n of an empty table, one write a
// memory page, so that the operating system maps them now rather than
// when they are first used, and returns where it stopped.
func (t *probeTable) touch(from, n int) int {
	end := min(from+n, len(t.tags))
	for i := from; i < end; i += 4096 {
		t.tags[i] = 0
	}
	for i := from; i < end; i += 1024 {
		t.refs[i] = 0
	}
	return end
}

// NewMemIndex returns an empty index with room for expectedPages pages
// before it first grows. Zero or negative means no expectation: the index
// starts small and grows step by step (see MemIndex), which holds up to
// 30% more memory than a right-sized index, and briefly the old tables
// beside the new ones.
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
	if slot, ok := x.findKeyIn(&x.keys, n, a, b); ok {
		return slot, true
	}
	if x.moved < x.moveEnd {
		return x.findKeyIn(&x.oldKeys, n, a, b)
	}
	return 0, false
}

func (x *MemIndex) findKeyIn(t *probeTable, n int, a, b uint64) (uint32, bool) {
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
	if slot, ok := x.findIDIn(&x.ids, id); ok {
		return slot, true
	}
	if x.moved < x.moveEnd {
		return x.findIDIn(&x.oldIDs, id)
	}
	return 0, false
}

func (x *MemIndex) findIDIn(t *probeTable, id int64) (uint32, bool) {
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
	indexable, err := Admit(ctx, sig)
	if err != nil {
		return 0, false, fmt.Errorf("check page %d: %w", id, err)
	}
	if !indexable {
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

// insert appends a page and its keys, moving pages into grown tables and
// growing the tables first if needed.
func (x *MemIndex) insert(id int64, f *[NumFeatures]uint64) error {
	x.migrate(migrateStep)
	x.prepare()
	if x.slots == maxSlots {
		x.rebuild(x.live + 1)
		if x.slots == maxSlots {
			return ErrIndexFull
		}
	}
	if x.keys.full(NumKeys) || x.ids.full(1) {
		x.grow()
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

// grow allocates tables with room for growth times the live pages (or for
// the expected pages, if more) and starts moving the pages into them; the
// old tables answer for the pages not yet moved. A growth still under way
// is finished first (which happens only if the tables were filled faster
// than migrateStep allows, never with inserts alone).
func (x *MemIndex) grow() {
	x.migrate(x.moveEnd)
	target := max(x.expected, minPages, int(float64(x.live+1)*growth))
	nk, ni := int(float64(target*NumKeys)/maxLoad)+1, int(float64(target)/maxLoad)+1
	x.oldKeys, x.oldIDs = x.keys, x.ids
	if x.nextKeys.holds(x.live+1, NumKeys) && x.nextIDs.holds(x.live+1, 1) {
		// Prepared ahead (for growth times the old capacity, which may
		// differ a little from target); what is not resident yet is
		// faulted in at use.
		x.keys, x.ids = x.nextKeys, x.nextIDs
	} else {
		x.keys, x.ids = newProbeTable(nk), newProbeTable(ni)
	}
	x.nextKeys, x.nextIDs = probeTable{}, probeTable{}
	x.moved, x.moveEnd = 0, x.slots
	x.migrate(0) // frees the old tables at once when there is nothing to move
}

// prepare allocates the next tables once the current ones are nearly
// full, for growth times their capacity, and makes touchStep more entries
// of each resident. Nothing is prepared while pages are still moving.
func (x *MemIndex) prepare() {
	if x.moved < x.moveEnd {
		return
	}
	if x.nextKeys.tags == nil {
		if !x.keys.nearFull(NumKeys) && !x.ids.nearFull(1) {
			return
		}
		x.nextKeys = newProbeTable(int(float64(len(x.keys.tags))*growth) + 1)
		x.nextIDs = newProbeTable(int(float64(len(x.ids.tags))*growth) + 1)
		x.keysTouched, x.idsTouched = 0, 0
	}
	x.keysTouched = x.nextKeys.touch(x.keysTouched, touchStep)
	x.idsTouched = x.nextIDs.touch(x.idsTouched, touchStep)
}

// migrate moves up to n more pages into the grown tables, skipping removed
// ones, and drops the old tables once every page has moved.
func (x *MemIndex) migrate(n int) {
	for ; n > 0 && x.moved < x.moveEnd; n-- {
		s := uint32(x.moved)
		x.moved++
		if x.isDead(s) {
			continue
		}
		c, k := x.page(s)
		x.addKeys(s, &c.feats[k])
		x.ids.add(idHash(c.ids[k]), s)
	}
	if x.moved == x.moveEnd && (x.oldKeys.tags != nil || x.oldIDs.tags != nil) {
		x.oldKeys, x.oldIDs = probeTable{}, probeTable{}
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
	x.oldKeys, x.oldIDs = probeTable{}, probeTable{}
	x.nextKeys, x.nextIDs = probeTable{}, probeTable{}
	x.moved, x.moveEnd = 0, 0
	for s := range to {
		c, k := x.page(uint32(s))
		x.addKeys(uint32(s), &c.feats[k])
		x.ids.add(idHash(c.ids[k]), uint32(s))
	}
}

// Lookup implements Index.
func (x *MemIndex) Lookup(ctx context.Context, sig Signature) (int64, bool, error) {
	indexable, err := Admit(ctx, sig)
	if err != nil {
		return 0, false, fmt.Errorf("look up signature: %w", err)
	}
	if !indexable {
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

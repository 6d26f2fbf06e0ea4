package lexical

import "hash/maphash"

// wordTable maps the words an Analyzer has read to their terms' ids: an
// open-addressing hash table whose slots hold a word's place in one byte
// arena, so a lookup touches a 16-byte slot and the word's bytes, both
// packed, with no pointer to chase. Words go into the arena in the order
// first read, which keeps a text's common words together in the CPU's
// cache. (It replaced a two-way cache of Go strings whose misses on the
// slots and on each string's separate allocation were most of indexing's
// analysis time.)
//
// In front of it sits short, a direct-mapped cache of words of up to 16
// bytes (nearly all words) held in the entry itself: 256 KB that stay in
// the core's cache, where the table's slots of a large vocabulary do not,
// so a common word costs a multiply and one load.
type wordTable struct {
	slots []wordSlot // a power of two long; at most half full
	arena []byte
	words int
	short *[shortSlots]shortWord
}

// shortWord is a word of up to 16 bytes, packed little-endian into lo and
// hi, and its term as in wordSlot. n == 0 marks an empty entry.
type shortWord struct {
	lo, hi uint64
	n      uint32
	term   uint32
	_      uint64 // to 32 bytes: two entries a cache line
}

const (
	shortSlotBits = 13
	shortSlots    = 1 << shortSlotBits
	maxShortWord  = 16
)

// shortEntry returns the entry of w (at most maxShortWord bytes) in the
// short cache, and whether it holds w; if not, it is the one w replaces.
func (t *wordTable) shortEntry(w []byte) (*shortWord, bool) {
	lo, hi := packWord(w)
	e := t.shortSlot(lo, hi)
	if e.lo == lo && e.hi == hi && e.n == uint32(len(w)) {
		return e, true
	}
	e.lo, e.hi, e.n = lo, hi, uint32(len(w))
	return e, false
}

// shortSlot is where the word packed as lo, hi goes in the short cache.
func (t *wordTable) shortSlot(lo, hi uint64) *shortWord {
	if t.short == nil {
		t.short = new([shortSlots]shortWord)
	}
	return &t.short[((lo^hi*0xC2B2AE3D27D4EB4F)*0x9E3779B97F4A7C15)>>(64-shortSlotBits)]
}

// packWord packs a word of 1 to 16 bytes little-endian into lo and hi,
// zero-padded. It loads w in at most two overlapping words rather than
// copying it into a buffer first: a load from bytes just stored one at a
// time stalls the CPU.
func packWord[T string | []byte](w T) (lo, hi uint64) {
	n := len(w)
	switch {
	case n >= 8:
		lo = load64(w, 0)
		hi = load64(w, n-8) >> (8 * (16 - n)) // bytes 8..n-1; none when n == 8
	case n >= 4:
		lo = uint64(load32(w, 0)) | uint64(load32(w, n-4))<<(8*(n-4))
	default:
		lo = uint64(w[0]) | uint64(w[n/2])<<(8*(n/2)) | uint64(w[n-1])<<(8*(n-1))
	}
	return lo, hi
}

// load64 and load32 read little-endian words of a string or byte slice;
// the compiler makes each one load.
func load64[T string | []byte](w T, i int) uint64 {
	w = w[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

func load32[T string | []byte](w T, i int) uint32 {
	w = w[i : i+4]
	return uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
}

// lowerMask has 0x20 in each of the n low bytes of a word: or-ed into a
// packed word of ASCII letters and digits, it lower-cases the letters and
// leaves the digits as they are.
func lowerMask(n int) uint64 {
	if n >= 8 {
		return 0x2020202020202020
	}
	return 0x2020202020202020 >> (8 * (8 - n))
}

// wordSlot is one word of a wordTable. n == 0 marks an empty slot: no word
// is empty.
type wordSlot struct {
	hash uint32 // the low bits of the word's hash, which placed it
	off  uint32 // where its bytes start in the arena
	n    uint32 // its length in bytes
	term uint32 // 1 + the id of its term; 0 when the word is dropped
}

// minWordSlots is a new table's size: small, so a table for one short text
// costs little to make, and doubled as it fills.
const minWordSlots = 1 << 12

var wordSeed = maphash.MakeSeed()

func hashWord(w []byte) uint32 { return uint32(maphash.Bytes(wordSeed, w)) }

// find returns w's slot, or the empty slot where it goes and false.
func (t *wordTable) find(w []byte, h uint32) (*wordSlot, bool) {
	if t.slots == nil {
		t.slots = make([]wordSlot, minWordSlots)
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 {
			return s, false
		}
		if s.hash == h && int(s.n) == len(w) && string(t.arena[s.off:s.off+s.n]) == string(w) {
			return s, true
		}
	}
}

// insert puts w, of hash h and term 1+id (0: dropped), in the empty slot s
// that find returned for it.
func (t *wordTable) insert(s *wordSlot, w []byte, h, term uint32) {
	*s = wordSlot{hash: h, off: uint32(len(t.arena)), n: uint32(len(w)), term: term}
	t.arena = append(t.arena, w...)
	t.words++
	if 2*t.words > len(t.slots) {
		t.grow()
	}
}

func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]wordSlot, 2*len(old))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.n == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

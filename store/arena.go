package store

// valueArena hands out the bytes of the records a write transaction puts.
// bbolt keeps the slice a Put is given, not a copy, until the transaction
// commits, so each record needs bytes of its own until then; the arena
// cuts them from a few large slabs, and the next transaction of a burst
// cuts its records from the same slabs again (it is kept with the term
// cache and dropped with it). Chunk, note, chunk term and block count
// records and posting blocks are most of the bytes a bulk commit writes,
// and were allocated anew for each: at 100k notes several hundred MB of a
// bulk add's garbage.
type valueArena struct {
	slabs [][]byte // each in use up to its length
	next  int      // the slab records are cut from
}

// arenaSlab is the size of the largest slab; a record larger than a
// quarter of it gets bytes of its own. The first slab is arenaFirstSlab
// and each next one twice the last, so that a commit of one note (an
// edit) does not fault in a whole large slab.
const (
	arenaSlab      = 1 << 20
	arenaFirstSlab = 16 << 10
)

// room returns an empty slice with room for at least n bytes that no
// record shares, for the caller to append a record to and then claim.
func (a *valueArena) room(n int) []byte {
	if n > arenaSlab/4 {
		return make([]byte, 0, n)
	}
	for ; a.next < len(a.slabs); a.next++ {
		if s := a.slabs[a.next]; cap(s)-len(s) >= n {
			return s[len(s):len(s):cap(s)]
		}
	}
	size := arenaFirstSlab
	if len(a.slabs) > 0 {
		size = min(2*cap(a.slabs[len(a.slabs)-1]), arenaSlab)
	}
	a.slabs = append(a.slabs, make([]byte, 0, max(size, n)))
	return a.slabs[a.next][:0]
}

// claim marks rec, a record appended to the last room, as in use. A
// record that outgrew its room was moved by append and needs nothing.
func (a *valueArena) claim(rec []byte) []byte {
	if a.next < len(a.slabs) {
		s := a.slabs[a.next]
		if len(rec) > 0 && len(s) < cap(s) && &s[:len(s)+1][len(s)] == &rec[0] {
			a.slabs[a.next] = s[:len(s)+len(rec)]
		}
	}
	return rec
}

// reset frees every record the arena holds, once the transaction that
// put them has ended.
func (a *valueArena) reset() {
	for i := range a.slabs {
		a.slabs[i] = a.slabs[i][:0]
	}
	a.next = 0
}

package store

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"slices"
)

// The blocks bucket counts, per folder, how many notes hold each block, so
// a block repeated across many notes (a template's footer) can be told
// from a note's own text. It holds one nested bucket per folder; in it, the
// base tier spreads the blocks over blockShards values by the top bits of
// their id (the 16 hex digits of parse's ids, as 8 bytes), each value a
// sorted run of fixed-width entries: id (8 bytes), count (4 bytes,
// big-endian). Beside the base are runs of count changes (blocktiers.go),
// and a block's count is the sum over the tiers.
//
// Counts, not a key per block and note: most blocks are in one note only,
// and a key each would cost a first index of the Dendron vault about 20,000
// bbolt writes (a fifth of its CPU); a transaction instead adds its
// changes as one run. The notes holding a block are found, when needed,
// from the note records, which list their blocks.
//
// Counts change with the note record (putNoteRecord, deleteNote, MoveNote),
// in the note's transaction; the changes wait in the transaction until a
// count is read or it commits (flushBlocks), so a note written again with
// the same blocks writes nothing.

const (
	blockShards     = 1024
	blockEntryBytes = 8 + 4
)

// BlockHoldersOf returns how many notes of folder hold each block of ids
// (0 for an id parse would not make), reading each shard once. The
// transaction's own count changes are written first; when that fails, so
// does the read, rather than answer with counts that leave them out.
func (t *Tx) BlockHoldersOf(folder string, ids []string) ([]int, error) {
	if err := t.flushBlocks(); err != nil {
		return nil, err
	}
	out := make([]int, len(ids))
	b := t.bucket(bucketBlocks).Bucket([]byte(folder))
	if b == nil {
		return out, nil
	}
	keyed := make([]keyedID, 0, len(ids))
	for i, id := range ids {
		if k, ok := decodeBlockID(id); ok {
			keyed = append(keyed, keyedID{k, int32(i)})
		}
	}
	counts := readTiers(b).counter()
	for _, k := range sortKeyed(keyed) {
		out[k.at] = counts.count(k.id)
	}
	return out, nil
}

// keyedID is a block id and where it is in the list asked about.
type keyedID struct {
	id uint64
	at int32
}

// sortKeyed sorts ids by id: a batch's foresight asks for ~20k ids, which
// a comparison sort through their places took 2 ms to order and a radix
// sort of the pairs 0.25 (8-bit digits, so a short list costs little
// more). It returns the sorted slice, ids's or one of its own.
func sortKeyed(ids []keyedID) []keyedID {
	if len(ids) < 256 {
		slices.SortFunc(ids, func(a, b keyedID) int { return cmp.Compare(a.id, b.id) })
		return ids
	}
	tmp := make([]keyedID, len(ids))
	for shift := 0; shift < 64; shift += 8 {
		var at [256]int
		for _, k := range ids {
			at[byte(k.id>>shift)]++
		}
		n := 0
		for d, c := range at {
			at[d], n = n, n+c
		}
		for _, k := range ids {
			d := byte(k.id >> shift)
			tmp[at[d]] = k
			at[d]++
		}
		ids, tmp = tmp, ids
	}
	return ids
}

// BlockChange is how this transaction changed the number of notes of
// Folder that hold block ID.
type BlockChange struct {
	Folder, ID    string
	Before, After int // notes holding it when the transaction began, and now
}

// BlockCrossings returns the blocks whose holder count this transaction
// took from below threshold to threshold or more, or back, in no
// particular order. It fails only when writing the transaction's waiting
// changes does.
func (t *Tx) BlockCrossings(threshold int) ([]BlockChange, error) {
	if err := t.flushBlocks(); err != nil {
		return nil, err
	}
	var out []BlockChange
	for folder, changes := range t.blockChanges {
		for id, c := range changes {
			if (c.before >= threshold) != (c.after >= threshold) {
				out = append(out, BlockChange{folder, hex.EncodeToString(binary.BigEndian.AppendUint64(nil, id)), c.before, c.after})
			}
		}
	}
	return out, nil
}

// RecountBlocks counts anew, from the note records, how many notes of each
// folder hold each block: for a store whose notes were written before the
// counts were kept, or under other rules.
func (t *Tx) RecountBlocks() error {
	var folders [][]byte
	if err := t.bucket(bucketBlocks).ForEach(func(k, _ []byte) error {
		folders = append(folders, append([]byte(nil), k...))
		return nil
	}); err != nil {
		return err
	}
	for _, f := range folders {
		if err := t.bucket(bucketBlocks).DeleteBucket(f); err != nil {
			return err
		}
	}
	clear(t.blockDeltas)
	if err := t.ForEachNote("", func(n *Note) error {
		t.countBlocks(n.Folder, n.Blocks, +1)
		return nil
	}); err != nil {
		return err
	}
	return t.flushBlocks()
}

type countChange struct{ before, after int }

// countBlocks adds delta (+1 or -1) to the holder count of each of ids in
// folder, in t.blockDeltas, until flushBlocks writes them.
func (t *Tx) countBlocks(folder string, ids []string, delta int) {
	if len(ids) == 0 {
		return
	}
	if t.blockDeltas == nil {
		t.blockDeltas = map[string]map[uint64]int{}
	}
	f := t.blockDeltas[folder]
	if f == nil {
		f = make(map[uint64]int, 64*len(ids))
		t.blockDeltas[folder] = f
	}
	for _, id := range ids {
		if k, ok := decodeBlockID(id); ok {
			f[k] += delta
		}
	}
}

// flushBlocks writes the count changes waiting in t.blockDeltas, a run
// a folder, and records them in t.blockChanges.
func (t *Tx) flushBlocks() error {
	for folder, deltas := range t.blockDeltas {
		if err := t.flushFolderBlocks(folder, deltas); err != nil {
			return err
		}
		delete(t.blockDeltas, folder)
	}
	return nil
}

// flushFolderBlocks adds deltas, count changes of blocks of folder, as a
// run of the changes they make: a count stays at 0 or more, so a change
// below that changes it less.
func (t *Tx) flushFolderBlocks(folder string, deltas map[uint64]int) error {
	ids := make([]uint64, 0, len(deltas))
	for id, d := range deltas {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	b, err := t.bucket(bucketBlocks).CreateBucketIfNotExists([]byte(folder))
	if err != nil {
		return err
	}
	tiers := readTiers(b)
	counts := tiers.counter()
	if t.blockChanges == nil {
		t.blockChanges = map[string]map[uint64]countChange{}
	}
	changes := t.blockChanges[folder]
	if changes == nil {
		changes = make(map[uint64]countChange, len(deltas))
		t.blockChanges[folder] = changes
	}
	a := t.arena()
	run := a.room(len(ids) * blockEntryBytes)
	for _, id := range ids {
		before := counts.count(id)
		after := max(0, before+deltas[id])
		if after != before {
			run = appendEntry(run, id, after-before)
		}
		c, seen := changes[id]
		if !seen {
			c.before = before
		}
		c.after = after
		changes[id] = c
	}
	if run = a.claim(run); len(run) == 0 {
		return nil
	}
	return t.addRun(&tiers, run)
}

// findEntry returns the offset in run of the entry of id, or of the first
// entry after it and false.
func findEntry(run []byte, id uint64) (int, bool) {
	n := len(run) / blockEntryBytes
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if binary.BigEndian.Uint64(run[m*blockEntryBytes:]) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo * blockEntryBytes, lo < n && binary.BigEndian.Uint64(run[lo*blockEntryBytes:]) == id
}

// shardOf is the shard of a block id: its top 10 bits.
func shardOf(id uint64) uint16 { return uint16(id >> 54) }

func shardKey(id uint64) []byte { return binary.BigEndian.AppendUint16(nil, shardOf(id)) }

// decodeBlockID reads a block id's 16 hex digits as a number (their bytes
// big-endian, so numbers sort as the ids do); false for anything else
// (nothing parse makes).
func decodeBlockID(id string) (uint64, bool) {
	if len(id) != 16 {
		return 0, false
	}
	var v uint64
	var bad byte
	for i := range 16 {
		d := hexDigits[id[i]]
		bad |= d
		v = v<<4 | uint64(d&0xf)
	}
	return v, bad&0x80 == 0
}

// hexDigits is each byte's value as a hex digit, either case, or 0x80 for
// a byte that is none: a batch's foresight decodes ~20k ids, which
// hex.Decode took a tenth of a 100k-note add's boilerplate work for.
var hexDigits = func() (t [256]byte) {
	for i := range t {
		t[i] = 0x80
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = c-'a'+10, c-'a'+10
	}
	return t
}()

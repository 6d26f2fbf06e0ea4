package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// The blocks bucket counts, per folder, how many notes hold each block, so
// a block repeated across many notes (a template's footer) can be told
// from a note's own text. It holds one nested bucket per folder; in it,
// the blocks are spread over blockShards values by the top bits of their
// id (the 16 hex digits of parse's ids, as 8 bytes), each value a sorted
// run of fixed-width entries: id (8 bytes), count (4 bytes, big-endian).
//
// Counts, not a key per block and note: most blocks are in one note only,
// and a key each would cost a first index of the Dendron vault about 20,000
// bbolt writes (a fifth of its CPU); a transaction instead rewrites the
// shards its notes touched, once. The notes holding a block are found, when
// needed, from the note records, which list their blocks.
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
// (0 for an id parse would not make), reading each shard once.
func (t *Tx) BlockHoldersOf(folder string, ids []string) []int {
	out := make([]int, len(ids))
	if t.flushBlocks() != nil {
		return out
	}
	b := t.bucket(bucketBlocks).Bucket([]byte(folder))
	if b == nil {
		return out
	}
	keys := make([][8]byte, len(ids))
	order := make([]int, 0, len(ids))
	for i, id := range ids {
		if decodeBlockID(&keys[i], id) {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(shardOf(keys[a]), shardOf(keys[b])) })
	var run []byte
	shard := -1
	for _, i := range order {
		if s := int(shardOf(keys[i])); s != shard {
			run, shard = b.Get(shardKey(keys[i])), s
		}
		if at, ok := findEntry(run, keys[i]); ok {
			out[i] = int(binary.BigEndian.Uint32(run[at+8:]))
		}
	}
	return out
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
	for ref, c := range t.blockChanges {
		if (c.before >= threshold) != (c.after >= threshold) {
			out = append(out, BlockChange{ref.folder, hex.EncodeToString(ref.id[:]), c.before, c.after})
		}
	}
	return out, nil
}

// noteBlock names one block of one folder.
type noteBlock struct {
	folder string
	id     [8]byte
}

type countChange struct{ before, after int }

// countBlocks adds delta (+1 or -1) to the holder count of each of ids in
// folder, in t.blockDeltas, until flushBlocks writes them.
func (t *Tx) countBlocks(folder string, ids []string, delta int) {
	if len(ids) == 0 {
		return
	}
	if t.blockDeltas == nil {
		t.blockDeltas = make(map[noteBlock]int, 64*len(ids))
	}
	ref := noteBlock{folder: folder}
	for _, id := range ids {
		if decodeBlockID(&ref.id, id) {
			t.blockDeltas[ref] += delta
		}
	}
}

// flushBlocks writes the count changes waiting in t.blockDeltas, rewriting
// each shard they touch once, and records them in t.blockChanges.
func (t *Tx) flushBlocks() error {
	if len(t.blockDeltas) == 0 {
		return nil
	}
	refs := make([]noteBlock, 0, len(t.blockDeltas))
	for ref, d := range t.blockDeltas {
		if d != 0 {
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b noteBlock) int {
		return cmp.Or(strings.Compare(a.folder, b.folder), bytes.Compare(a.id[:], b.id[:]))
	})
	for len(refs) > 0 {
		n := 1
		for n < len(refs) && refs[n].folder == refs[0].folder && shardOf(refs[n].id) == shardOf(refs[0].id) {
			n++
		}
		if err := t.rewriteShard(refs[:n]); err != nil {
			return err
		}
		refs = refs[n:]
	}
	clear(t.blockDeltas)
	return nil
}

// rewriteShard applies the waiting deltas of refs, blocks of one folder
// and shard in id order, to that shard.
func (t *Tx) rewriteShard(refs []noteBlock) error {
	b, err := t.bucket(bucketBlocks).CreateBucketIfNotExists([]byte(refs[0].folder))
	if err != nil {
		return err
	}
	key := shardKey(refs[0].id)
	old := b.Get(key)
	run := make([]byte, 0, len(old)+len(refs)*blockEntryBytes)
	if t.blockChanges == nil {
		t.blockChanges = make(map[noteBlock]countChange, len(t.blockDeltas))
	}
	for _, ref := range refs {
		i, found := findEntry(old, ref.id)
		before := 0
		if found {
			before = int(binary.BigEndian.Uint32(old[i+8:]))
		}
		run = append(run, old[:i]...)
		if found {
			i += blockEntryBytes
		}
		old = old[i:]
		after := max(0, before+t.blockDeltas[ref])
		if after > 0 {
			run = binary.BigEndian.AppendUint32(append(run, ref.id[:]...), uint32(after))
		}
		c, seen := t.blockChanges[ref]
		if !seen {
			c.before = before
		}
		c.after = after
		t.blockChanges[ref] = c
	}
	run = append(run, old...)
	if len(run) == 0 {
		return b.Delete(key)
	}
	return b.Put(key, run)
}

// findEntry returns the offset in run of the entry of id, or of the first
// entry after it and false.
func findEntry(run []byte, id [8]byte) (int, bool) {
	n := len(run) / blockEntryBytes
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(run[m*blockEntryBytes:m*blockEntryBytes+8], id[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo * blockEntryBytes, lo < n && bytes.Equal(run[lo*blockEntryBytes:lo*blockEntryBytes+8], id[:])
}

func shardOf(id [8]byte) uint16 { return binary.BigEndian.Uint16(id[:]) >> 6 }

func shardKey(id [8]byte) []byte { return binary.BigEndian.AppendUint16(nil, shardOf(id)) }

// decodeBlockID reads a block id's 16 hex digits into dst; false for
// anything else (nothing parse makes).
func decodeBlockID(dst *[8]byte, id string) bool {
	if len(id) != 16 {
		return false
	}
	_, err := hex.Decode(dst[:], []byte(id))
	return err == nil
}

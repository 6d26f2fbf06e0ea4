package store

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The blocks bucket says which notes of a folder hold each block, so a
// block repeated across many notes (a template's footer) can be told from
// a note's own text, and the notes holding it found when that changes.
// It holds one nested bucket per folder; in it, a block id (8 bytes, the
// 16 hex digits of parse's ids) followed by the note's path relative to
// the folder → nothing. A holder count is a walk over one id's keys,
// bounded by what the caller needs to know, so no counter can drift from
// the keys it counts. The keys are written with the note record (putNoteRecord,
// deleteNote, MoveNote), in the note's transaction.

// noteBlock names one block of one folder.
type noteBlock struct {
	folder string
	id     [8]byte
}

// BlockHolders returns how many notes of folder hold the block with id,
// counting no further than limit: the caller asks only whether a count
// reaches a threshold, and a block in thousands of notes is not walked.
func (t *Tx) BlockHolders(folder, id string, limit int) int {
	b, key, ok := t.blockPrefix(folder, id)
	if !ok {
		return 0
	}
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(key); k != nil && bytes.HasPrefix(k, key) && n < limit; k, _ = c.Next() {
		n++
	}
	return n
}

// ForEachBlockHolder calls fn with the path of each note of folder that
// holds the block with id, in path order, until fn returns false.
func (t *Tx) ForEachBlockHolder(folder, id string, fn func(path string) bool) {
	b, key, ok := t.blockPrefix(folder, id)
	if !ok {
		return
	}
	c := b.Cursor()
	for k, _ := c.Seek(key); k != nil && bytes.HasPrefix(k, key); k, _ = c.Next() {
		if !fn(holderPath(folder, k[len(key):])) {
			return
		}
	}
}

// BlockChange is how this transaction changed the number of notes of
// Folder that hold block ID.
type BlockChange struct {
	Folder, ID string
	Delta      int // notes that hold it now, less those that held it before
}

// BlockChanges returns the blocks whose holder count this transaction
// changed (a note written again with the same blocks changes none), in
// folder and id order.
func (t *Tx) BlockChanges() []BlockChange {
	out := make([]BlockChange, 0, len(t.blockEdits))
	for ref, d := range t.blockEdits {
		if d != 0 {
			out = append(out, BlockChange{Folder: ref.folder, ID: hex.EncodeToString(ref.id[:]), Delta: d})
		}
	}
	slices.SortFunc(out, func(a, b BlockChange) int {
		return cmp.Or(strings.Compare(a.Folder, b.Folder), strings.Compare(a.ID, b.ID))
	})
	return out
}

// addBlockHolders records n as a holder of each of its blocks.
func (t *Tx) addBlockHolders(n *Note) error {
	if len(n.Blocks) == 0 {
		return nil
	}
	b, err := t.bucket(bucketBlocks).CreateBucketIfNotExists([]byte(n.Folder))
	if err != nil {
		return err
	}
	return t.editBlockHolders(b, n.Folder, n.Path, n.Blocks, +1)
}

// removeBlockHolders drops the note stored under key, n, as a holder of its
// blocks.
func (t *Tx) removeBlockHolders(key string, n *Note) error {
	b := t.bucket(bucketBlocks).Bucket([]byte(n.Folder))
	if b == nil || len(n.Blocks) == 0 {
		return nil
	}
	return t.editBlockHolders(b, n.Folder, key, n.Blocks, -1)
}

// editBlockHolders adds (+1) or removes (-1) path as a holder of ids in b,
// counting in t.blockEdits only the keys that changed.
func (t *Tx) editBlockHolders(b *bolt.Bucket, folder, path string, ids []string, sign int) error {
	rel := holderSuffix(folder, path)
	for _, id := range ids {
		var ref noteBlock
		if n, err := hex.Decode(ref.id[:], []byte(id)); err != nil || n != len(ref.id) {
			continue // not an id parse makes: nothing to count it with
		}
		ref.folder = folder
		key := append(ref.id[:len(ref.id):len(ref.id)], rel...)
		k, _ := b.Cursor().Seek(key)
		held := k != nil && bytes.Equal(k, key)
		switch {
		case sign > 0 && !held:
			if err := b.Put(key, nil); err != nil {
				return err
			}
		case sign < 0 && held:
			if err := b.Delete(key); err != nil {
				return err
			}
		default:
			continue
		}
		if t.blockEdits == nil {
			t.blockEdits = map[noteBlock]int{}
		}
		t.blockEdits[ref] += sign
	}
	return nil
}

// blockPrefix returns folder's nested bucket and the key prefix of id in
// it; false when neither can hold anything.
func (t *Tx) blockPrefix(folder, id string) (*bolt.Bucket, []byte, bool) {
	b := t.bucket(bucketBlocks).Bucket([]byte(folder))
	key, err := hex.DecodeString(id)
	if b == nil || err != nil || len(key) != 8 {
		return nil, nil, false
	}
	return b, key, true
}

// holderSuffix is path as a key stores it: relative to folder when it lies
// under it (every note does), else whole after a zero byte.
func holderSuffix(folder, path string) []byte {
	if rel, ok := strings.CutPrefix(path, folder); ok {
		return []byte(rel)
	}
	return append([]byte{0}, path...)
}

func holderPath(folder string, suffix []byte) string {
	if len(suffix) > 0 && suffix[0] == 0 {
		return string(suffix[1:])
	}
	return folder + string(suffix)
}

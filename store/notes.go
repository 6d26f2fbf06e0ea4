package store

import (
	"bytes"
	"fmt"
	"slices"
	"time"
)

// Note is one indexed file. Path is absolute; Hash is the hex SHA-256 of the
// file's content.
type Note struct {
	Path      string    `json:"path"`
	Folder    string    `json:"folder"`
	Size      int64     `json:"size"`
	ModTime   time.Time `json:"mtime"`
	Hash      string    `json:"hash"`
	Title     string    `json:"title"`
	Tags      []string  `json:"tags,omitempty"`
	Links     []string  `json:"links,omitempty"`
	Aliases   []string  `json:"aliases,omitempty"` // other names links may use
	Blocks    []string  `json:"blocks,omitempty"`  // stable ids of the blocks that may be template boilerplate (pipeline's choice), in order; counted per folder (blocks.go)
	Summary   string    `json:"summary,omitempty"`
	Chunker   string    `json:"chunker"` // "heuristic", "model" or "fallback"
	IndexedAt time.Time `json:"indexed_at"`
	Chunks    []uint64  `json:"chunks"` // set by PutNote
}

// PutNote replaces everything stored of n.Path (note, chunks, postings) with
// n and chunks, in this transaction, and returns the note it replaced (nil
// if none). Chunk ids are assigned here and written back into n.Chunks and
// each chunk. The transaction keeps each chunk's Terms until it commits:
// the caller must not change them before.
func (t *Tx) PutNote(n *Note, chunks []NewChunk) (replaced *Note, err error) {
	if replaced, err = t.DeleteNote(n.Path); err != nil {
		return nil, err
	}
	cb := t.bucket(bucketChunks)
	n.Chunks = n.Chunks[:0]
	var length int64
	for i := range chunks {
		c := &chunks[i]
		id, err := cb.NextSequence()
		if err != nil {
			return nil, err
		}
		if e := t.edits(); e.freshFrom == 0 {
			e.freshFrom = id
		}
		c.ID, c.Path, c.Folder, c.Ordinal = id, n.Path, n.Folder, i
		if err := t.putChunk(&c.Chunk); err != nil {
			return nil, err
		}
		if err := t.addChunkTerms(id, c); err != nil {
			return nil, err
		}
		length += int64(c.termsLength())
		n.Chunks = append(n.Chunks, id)
	}
	if err := t.putNoteRecord(n); err != nil {
		return nil, err
	}
	t.addCounter(counterNotes, 1)
	t.addCounter(counterChunks, int64(len(chunks)))
	t.addCounter(counterLength, length)
	return replaced, nil
}

func (t *Tx) putNoteRecord(n *Note) error {
	a := t.arena()
	if err := t.bucket(bucketNotes).Put([]byte(n.Path), a.claim(encodeNote(a.room(noteRecordSize(n)), n))); err != nil {
		return err
	}
	t.countBlocks(n.Folder, n.Blocks, +1)
	t.hashEdits = append(t.hashEdits, hashEdit{hash: n.Hash, path: n.Path, add: true})
	return nil
}

// Note returns the note stored at path, or ErrNotFound.
func (t *Tx) Note(path string) (*Note, error) {
	n, err := t.LookupNote(path)
	if n == nil && err == nil {
		err = fmt.Errorf("note %s: %w", path, ErrNotFound)
	}
	return n, err
}

// LookupNote returns the note stored at path, or nil and no error when none
// is. It is Note for callers to whom a miss is ordinary (every new note is
// looked up before it is written), and builds no error for one.
func (t *Tx) LookupNote(path string) (*Note, error) {
	v := t.get(bucketNotes, []byte(path))
	if v == nil {
		return nil, nil
	}
	n := new(Note)
	if err := decodeNote(v, n); err != nil {
		return nil, fmt.Errorf("note %s: %w", path, err)
	}
	return n, nil
}

// NotesWithHash returns the notes stored in this transaction whose content
// hash is hash, in path order, less any that a commit since this
// transaction began has deleted, moved or changed (the index it asks is
// current, not a snapshot's: such a note is gone by the time a write could
// move it). A note whose record does not decode is left out.
func (t *Tx) NotesWithHash(hash string) []*Note {
	paths := t.hashes.candidates(t, hash)
	slices.Sort(paths)
	var out []*Note
	for _, path := range slices.Compact(paths) {
		if n, _ := t.LookupNote(path); n != nil && n.Hash == hash {
			out = append(out, n)
		}
	}
	return out
}

// ForEachNote calls fn for every note whose path starts with prefix, in path
// order; "" visits all. fn must not keep n past the call.
func (t *Tx) ForEachNote(prefix string, fn func(n *Note) error) error {
	c := t.bucket(bucketNotes).Cursor()
	p := []byte(prefix)
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		var n Note
		if err := decodeNote(v, &n); err != nil {
			return fmt.Errorf("note %s: %w", k, err)
		}
		if err := fn(&n); err != nil {
			return err
		}
	}
	return nil
}

// ForEachNoteBlocks calls fn with the path, folder and blocks of every
// note whose path starts with prefix and want accepts (all when nil),
// decoding no other field of its record: what a block's holders are
// found by (a settle's scan of a folder of 100k notes decoded each whole).
// fn must keep none of its arguments, which are the store's bytes, past
// the call.
func (t *Tx) ForEachNoteBlocks(prefix string, want func(path []byte) bool, fn func(path, folder []byte, blocks [][]byte) error) error {
	c := t.bucket(bucketNotes).Cursor()
	p := []byte(prefix)
	blocks := make([][]byte, 0, 16)
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if want != nil && !want(k) {
			continue
		}
		folder, _, bs, ok := peekNote(v, blocks)
		if !ok {
			return fmt.Errorf("note %s: %w", k, errDamaged)
		}
		blocks = bs
		if err := fn(k, folder, blocks); err != nil {
			return err
		}
	}
	return nil
}

// DeleteNote removes the note at path with its chunks, postings and vectors
// and returns the note it removed, so a caller need not read it first. When
// no note is stored at path it removes nothing and returns nil, like the
// store's other deletes.
func (t *Tx) DeleteNote(path string) (*Note, error) {
	n, err := t.LookupNote(path)
	if n == nil || err != nil {
		return nil, err
	}
	return n, t.deleteNote(path, n, t.VectorFingerprints())
}

// DeleteNotesUnder removes, as DeleteNote does, every note whose path starts
// with prefix, in path order, and calls removed with each note once it is
// gone. Each note is read and decoded once.
func (t *Tx) DeleteNotesUnder(prefix string, removed func(n *Note)) error {
	// Changing a bucket while a bbolt cursor walks it can make the cursor
	// skip keys: collect the paths first, without decoding the notes.
	var paths []string
	c := t.bucket(bucketNotes).Cursor()
	p := []byte(prefix)
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		paths = append(paths, string(k))
	}
	fps := t.VectorFingerprints()
	for _, path := range paths {
		n, err := t.LookupNote(path)
		if err != nil {
			return err
		}
		if err := t.deleteNote(path, n, fps); err != nil {
			return err
		}
		removed(n)
	}
	return nil
}

// deleteNote removes n, the note stored under key, with its chunks,
// postings and vectors under fps. It deletes by key, not by n.Path: a
// damaged record's own path must not make it delete another note.
func (t *Tx) deleteNote(key string, n *Note, fps []string) error {
	var length int64
	for _, id := range n.Chunks {
		l, err := t.deleteChunk(id, fps)
		if err != nil {
			return err
		}
		length += int64(l)
	}
	if err := t.bucket(bucketNotes).Delete([]byte(key)); err != nil {
		return err
	}
	t.hashEdits = append(t.hashEdits, hashEdit{hash: n.Hash, path: key})
	t.countBlocks(n.Folder, n.Blocks, -1)
	if err := t.FinishEnrich(key); err != nil {
		return err
	}
	t.addCounter(counterNotes, -1)
	t.addCounter(counterChunks, -int64(len(n.Chunks)))
	t.addCounter(counterLength, -length)
	return nil
}

// MoveNote moves old, the note stored at old.Path as read in this
// transaction, to the note n describes (a rename with the same content):
// chunks and postings are kept, only paths change, and a note stored at
// n.Path is replaced, and returned (nil if none). It takes the note, not
// its path, so a caller that has read it to check it (its hash, say) does
// not have it read twice.
func (t *Tx) MoveNote(old, n *Note) (replaced *Note, err error) {
	if err := t.bucket(bucketNotes).Delete([]byte(old.Path)); err != nil {
		return nil, err
	}
	t.hashEdits = append(t.hashEdits, hashEdit{hash: old.Hash, path: old.Path})
	t.countBlocks(old.Folder, old.Blocks, -1)
	if replaced, err = t.DeleteNote(n.Path); err != nil {
		return nil, err
	}
	n.Chunks = old.Chunks
	for _, id := range n.Chunks {
		c, err := t.Chunk(id)
		if err != nil {
			return nil, err
		}
		c.Path, c.Folder = n.Path, n.Folder
		if err := t.putChunk(c); err != nil {
			return nil, err
		}
	}
	if err := t.moveEnrich(old.Path, n.Path); err != nil {
		return nil, err
	}
	return replaced, t.putNoteRecord(n)
}

// CountNotes counts the notes whose path starts with prefix without decoding
// them.
func (t *Tx) CountNotes(prefix string) int {
	c := t.bucket(bucketNotes).Cursor()
	p := []byte(prefix)
	n := 0
	for k, _ := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, _ = c.Next() {
		n++
	}
	return n
}

// TouchNote records a new size and modification time, in n and in the
// store, for n, the note at n.Path as read in this transaction, whose
// content did not change; its chunks are kept. It takes the note, not its
// path, so a caller that has read it does not have it read twice.
func (t *Tx) TouchNote(n *Note, size int64, mtime time.Time) error {
	n.Size, n.ModTime = size, mtime
	a := t.arena()
	return t.bucket(bucketNotes).Put([]byte(n.Path), a.claim(encodeNote(a.room(noteRecordSize(n)), n)))
}

package store

import (
	"hash/maphash"
	"strings"
	"sync"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// hashIndex finds the notes that hold a content (NotesWithHash, how a
// rename is told from a new note) in memory, derived from the note
// records, which hold each note's hash. It replaced a bbolt bucket keyed
// by hash and path: keys at random, so each commit of a bulk add rewrote
// nearly every page of it (208 of the 1,198 MB written over a first
// index of 100k notes, for a bucket of 11 MB; without it that index
// takes 12.4 CPU-s, not 13.7, the means of seven alternating pairs). It
// is built on first need by a scan of the notes (50-60 ms for a store of
// 100k notes; a no-change restart never needs it) and kept current by
// each write transaction's note edits, applied once it commits (bbolt's
// OnCommit), so a transaction rolled back leaves nothing in it. It holds
// 6.7 MB at 100k notes and is kept while the daemon is idle, unlike the
// term cache: every save of a note asks for its hash, and would pay the
// scan again.
//
// A reader's snapshot may be older than the index (a commit applied since
// it began) or, between a commit and its OnCommit, newer: the index only
// proposes paths, and NotesWithHash keeps those whose note in the reader's
// own snapshot holds the hash.
type hashIndex struct {
	mu sync.Mutex
	// paths is a hash's key (hashKey) → the paths of the notes holding
	// it, joined by NUL, which no path holds: one string for most hashes,
	// the very one its note was put with. Nil until built.
	paths map[uint64]string
	// file is the bbolt file whose transaction ids lastEdit and pendingTx
	// are: a compaction swaps in a file whose ids start again.
	file *bolt.DB
	// lastEdit is the id of the last transaction that committed note
	// edits: an index built from an older snapshot misses them, so it
	// serves its one query but is not kept.
	lastEdit int
	// pending are the edits of the transaction pendingTx, committing now:
	// a reader whose snapshot holds that commit before its OnCommit has
	// applied them takes them from here.
	pending   []hashEdit
	pendingTx int
	// building is held by the reader scanning the notes, so the readers
	// that need the index meanwhile wait for it rather than scan too.
	building sync.Mutex
}

// hashEdit is a note path that gained or lost a hash in a transaction.
type hashEdit struct {
	hash, path string
	add        bool
}

// hashSeed keys the index. The key is not the hash's own first bytes
// because a hash need not be hex: the index serves any string.
var hashSeed = maphash.MakeSeed()

func hashKey(hash string) uint64 { return maphash.String(hashSeed, hash) }

// follow makes file the one the index describes: the store's at Open,
// or a compaction's copy of the same notes, whose transaction ids start
// again.
func (x *hashIndex) follow(file *bolt.DB) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.file, x.lastEdit = file, 0
}

// stage shows the edits of write transaction tx, about to commit, to the
// readers whose snapshot holds it before commit applies them.
func (x *hashIndex) stage(tx *bolt.Tx, edits []hashEdit) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending, x.pendingTx = edits, tx.ID()
}

// unstage forgets staged edits; after a commit that failed, nothing else does.
func (x *hashIndex) unstage() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.pending, x.pendingTx = nil, 0
}

// commit applies the staged edits of write transaction id, committed.
func (x *hashIndex) commit(id int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.paths != nil {
		applyHashEdits(x.paths, x.pending)
	}
	x.lastEdit = id
	x.pending, x.pendingTx = nil, 0
}

// applyHashEdits applies edits in order. Applying them to an index that
// already holds them changes nothing, so an index built from a snapshot
// that holds a commit still staged may have that commit applied again.
func applyHashEdits(paths map[uint64]string, edits []hashEdit) {
	for _, e := range edits {
		k := hashKey(e.hash)
		joined, had := paths[k], false
		for p := range strings.SplitSeq(joined, "\x00") {
			had = had || p == e.path
		}
		switch {
		case e.add && !had && joined == "":
			paths[k] = e.path
		case e.add && !had:
			paths[k] = joined + "\x00" + e.path
		case !e.add && had && joined == e.path:
			delete(paths, k)
		case !e.add && had:
			var kept []string
			for p := range strings.SplitSeq(joined, "\x00") {
				if p != e.path {
					kept = append(kept, p)
				}
			}
			paths[k] = strings.Join(kept, "\x00")
		}
	}
}

// candidates returns the paths the index holds for hash as t may see
// them, with t's own edits: unsorted and perhaps repeated, or stale to
// t's snapshot.
func (x *hashIndex) candidates(t *Tx, hash string) []string {
	k := hashKey(hash)
	x.mu.Lock()
	paths := x.paths
	if paths == nil || x.file != t.tx.DB() {
		x.mu.Unlock()
		paths = x.build(t)
		x.mu.Lock()
	}
	var out []string
	if joined := paths[k]; joined != "" {
		out = strings.Split(joined, "\x00")
	}
	if x.pendingTx != 0 && x.pendingTx <= t.tx.ID() && x.file == t.tx.DB() {
		out = appendAdded(out, x.pending, hash)
	}
	x.mu.Unlock()
	return appendAdded(out, t.hashEdits, hash)
}

// appendAdded appends to out the paths edits gave hash.
func appendAdded(out []string, edits []hashEdit, hash string) []string {
	for _, e := range edits {
		if e.add && e.hash == hash {
			out = append(out, e.path)
		}
	}
	return out
}

// build returns the index as t's snapshot holds it, kept for later
// queries when no note edit committed after that snapshot and the
// snapshot is a reader's (a write transaction's holds its own edits,
// which may yet be rolled back).
func (x *hashIndex) build(t *Tx) map[uint64]string {
	x.building.Lock()
	defer x.building.Unlock()
	x.mu.Lock()
	if x.paths != nil && x.file == t.tx.DB() {
		defer x.mu.Unlock()
		return x.paths // built while this reader waited
	}
	x.mu.Unlock()
	paths := t.scanHashes()
	x.mu.Lock()
	defer x.mu.Unlock()
	if !t.tx.Writable() && x.paths == nil && x.file == t.tx.DB() && x.lastEdit <= t.tx.ID() {
		x.paths = paths
	}
	return paths
}

// scanHashes reads each note record's hash, and the path it is stored
// under, decoding no more of the record. A record whose hash does not
// decode is left out, as NotesWithHash leaves out a note that does not.
func (t *Tx) scanHashes() map[uint64]string {
	paths := make(map[uint64]string, t.counter(counterNotes))
	c := t.bucket(bucketNotes).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		_, hash, _, ok := peekNote(v, nil)
		if !ok {
			continue
		}
		key := maphash.Bytes(hashSeed, hash)
		if joined, ok := paths[key]; ok {
			paths[key] = joined + "\x00" + string(k)
		} else {
			paths[key] = string(k)
		}
	}
	return paths
}

package store

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/memd-dev/memd/rank"
)

// The lexical index is one bbolt key per (block of chunk ids, term): the
// block number (chunk id >> blockShift) big-endian, then the term. The
// value is the block's postings sorted by chunk id (see appendBlock).
// Grouping ids into blocks keeps a bulk index to one Put per term per
// block. Putting the block first keeps every key a commit touches together:
// new chunks have the newest ids, so indexing rewrites only the newest
// block's pages instead of a page of every term in the index, and a note's
// edit touches only the blocks of its own chunks. Reading a term is one Get
// per block.
const blockShift = 13

// Posting is one chunk that holds a term; rank/posting.go holds its
// encoding in a block.
type Posting = rank.Posting

// blockRef names one posting block: a term and a block of chunk ids.
type blockRef struct {
	term  string
	block uint32
}

func refOf(term string, chunk uint64) blockRef {
	return blockRef{term: term, block: uint32(chunk >> blockShift)}
}

func (r blockRef) key() []byte { return blockKey(make([]byte, 0, len(r.term)+4), r.block, r.term) }

func blockKey(dst []byte, block uint32, term string) []byte {
	return append(binary.BigEndian.AppendUint32(dst, block), term...)
}

func compareRefs(a, b blockRef) int {
	if c := compareU64(uint64(a.block), uint64(b.block)); c != 0 {
		return c
	}
	return strings.Compare(a.term, b.term)
}

type postingEdits struct {
	adds    map[blockRef][]Posting       // postings to add
	removes map[blockRef]map[uint64]bool // chunk ids to remove
}

func (t *Tx) edits() *postingEdits {
	if t.postings == nil {
		t.postings = &postingEdits{adds: map[blockRef][]Posting{}, removes: map[blockRef]map[uint64]bool{}}
	}
	return t.postings
}

func (e *postingEdits) add(term string, p Posting) {
	k := refOf(term, p.Chunk)
	e.adds[k] = append(e.adds[k], p)
}

func (e *postingEdits) remove(term string, chunk uint64) {
	k := refOf(term, chunk)
	if e.removes[k] == nil {
		e.removes[k] = map[uint64]bool{}
	}
	e.removes[k][chunk] = true
	// A chunk added and removed in one transaction must not survive.
	if adds := e.adds[k]; len(adds) > 0 {
		e.adds[k] = slices.DeleteFunc(adds, func(p Posting) bool { return p.Chunk == chunk })
	}
}

// flushPostings applies the transaction's queued posting edits, one write
// per touched block, in key order. A block that only gains postings with ids
// above its last one (the common case: ids are fresh) is appended to as
// bytes without being decoded.
func (t *Tx) flushPostings() error {
	e := t.postings
	if e == nil {
		return nil
	}
	t.postings = nil
	keys := make([]blockRef, 0, len(e.adds)+len(e.removes))
	for k := range e.adds {
		keys = append(keys, k)
	}
	for k := range e.removes {
		if _, ok := e.adds[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareRefs)
	b := t.bucket(bucketPostings)
	var list []Posting
	for _, k := range keys {
		key := k.key()
		old := b.Get(key)
		adds := e.adds[k]
		if len(e.removes[k]) == 0 && slices.IsSortedFunc(adds, rank.ComparePostings) && (old == nil || adds[0].Chunk > rank.LastID(old)) {
			var prev uint64
			if old != nil {
				prev = rank.LastID(old)
			}
			if err := b.Put(key, rank.AppendBlock(old, adds, prev)); err != nil {
				return err
			}
			continue
		}
		list = list[:0]
		if old != nil {
			var err error
			if list, err = rank.DecodeBlock(old, list); err != nil {
				return fmt.Errorf("postings of %q: %w", k.term, err)
			}
		}
		if rm := e.removes[k]; len(rm) > 0 {
			list = slices.DeleteFunc(list, func(p Posting) bool { return rm[p.Chunk] })
		}
		list = append(list, adds...)
		slices.SortFunc(list, rank.ComparePostings)
		if len(list) == 0 {
			if err := b.Delete(key); err != nil {
				return err
			}
			continue
		}
		if err := b.Put(key, rank.AppendBlock(nil, list, 0)); err != nil {
			return err
		}
	}
	return nil
}

func compareU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Postings appends to dst every posting of term, in chunk id order. Edits
// made earlier in the same Update are not visible until it commits.
func (t *Tx) Postings(term string, dst []Posting) ([]Posting, error) {
	b := t.bucket(bucketPostings)
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 4+len(term))
	for block := uint32(0); block <= last; block++ {
		key = blockKey(key[:0], block, term)
		v := b.Get(key)
		if v == nil {
			continue
		}
		var err error
		if dst, err = rank.DecodeBlock(v, dst); err != nil {
			return dst, fmt.Errorf("postings of %q: %w", term, err)
		}
	}
	return dst, nil
}

// DocFreq is how many chunks hold term, counted without decoding their
// postings. Edits made earlier in the same Update are not visible.
func (t *Tx) DocFreq(term string) int {
	b := t.bucket(bucketPostings)
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 4+len(term))
	n := 0
	for block := uint32(0); block <= last; block++ {
		n += rank.BlockLen(b.Get(blockKey(key[:0], block, term)))
	}
	return n
}

// ForEachTerm calls fn for every term of the lexical index with the number
// of chunks that hold it, in no particular order. It reads every posting
// block once (counting, not decoding, its postings): the term dictionary
// typo tolerance is built from.
func (t *Tx) ForEachTerm(fn func(term string, df int)) error {
	df := map[string]int{}
	c := t.bucket(bucketPostings).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) < 4 {
			return fmt.Errorf("posting key %x is damaged; run `memctl reindex`", k)
		}
		df[string(k[4:])] += rank.BlockLen(v)
	}
	for term, n := range df {
		fn(term, n)
	}
	return nil
}

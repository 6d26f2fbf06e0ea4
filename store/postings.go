package store

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/memd-dev/memd/rank"
)

// The lexical index is three buckets:
//
//   - terms: term → its id (a uvarint), ids taken from the bucket's
//     sequence when a term is first indexed and kept after its last
//     posting goes, so an id never changes meaning.
//   - postings: one key per (span of chunk ids, term): the span number
//     (chunk id >> blockShift) and the term id, each 4 bytes big-endian;
//     the value is the term's postings in that span (rank/posting.go).
//   - lengths: span number → the span's chunk lengths (rank.Lengths),
//     which BM25 reads once per span instead of once per posting.
//
// Grouping ids into spans keeps a bulk index to one Put per term per span.
// Putting the span first keeps every key a commit touches together: new
// chunks have the newest ids, so indexing rewrites only the newest span's
// pages instead of a page of every term in the index, and a note's edit
// touches only the spans of its own chunks. Term ids instead of term
// strings make those keys 8 bytes and each chunk's term record (what a
// delete reads to find its postings, chunks.go) a run of small id gaps.
const blockShift = 13

// Posting is one chunk that holds a term; rank/posting.go holds its
// encoding in a block.
type Posting = rank.Posting

// blockRef names one posting block: a span of chunk ids and a term id.
type blockRef struct {
	block uint32
	term  uint32
}

func refOf(term uint32, chunk uint64) blockRef {
	return blockRef{block: uint32(chunk >> blockShift), term: term}
}

func (r blockRef) key() []byte { return blockKey(make([]byte, 0, 8), r.block, r.term) }

// base is the first chunk id of the block's span.
func (r blockRef) base() uint64 { return uint64(r.block) << blockShift }

func blockKey(dst []byte, block, term uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(dst, block), term)
}

func compareRefs(a, b blockRef) int {
	if c := compareU64(uint64(a.block), uint64(b.block)); c != 0 {
		return c
	}
	return compareU64(uint64(a.term), uint64(b.term))
}

// postingEdits are a write transaction's changes to the lexical index,
// applied together when it commits (flushPostings).
type postingEdits struct {
	adds    map[blockRef][]Posting       // postings to add
	removes map[blockRef]map[uint64]bool // chunk ids to remove
	// lengths: span → chunk offset → the chunk's new length, 0 for a
	// chunk removed.
	lengths map[uint32]map[uint64]uint32
	// ids caches term ids read or assigned in this transaction: a bulk
	// index meets most terms in many chunks.
	ids map[string]uint32
}

func (t *Tx) edits() *postingEdits {
	if t.postings == nil {
		t.postings = &postingEdits{
			adds: map[blockRef][]Posting{}, removes: map[blockRef]map[uint64]bool{},
			lengths: map[uint32]map[uint64]uint32{}, ids: map[string]uint32{},
		}
	}
	return t.postings
}

func (e *postingEdits) add(term uint32, p Posting) {
	k := refOf(term, p.Chunk)
	e.adds[k] = append(e.adds[k], p)
}

func (e *postingEdits) remove(term uint32, chunk uint64) {
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

func (e *postingEdits) setLength(chunk uint64, length uint32) {
	span := uint32(chunk >> blockShift)
	if e.lengths[span] == nil {
		e.lengths[span] = map[uint64]uint32{}
	}
	e.lengths[span][chunk&(rank.BlockSpan-1)] = length
}

// termID returns term's id, assigning the next one to a term the index
// has never held.
func (t *Tx) termID(term string) (uint32, error) {
	e := t.edits()
	if id, ok := e.ids[term]; ok {
		return id, nil
	}
	b := t.bucket(bucketTerms)
	id, ok, err := readTermID(b.Get([]byte(term)))
	if err != nil {
		return 0, fmt.Errorf("term %q: %w", term, err)
	}
	if !ok {
		seq, err := b.NextSequence()
		if err != nil {
			return 0, err
		}
		if seq > 1<<32-1 {
			return 0, fmt.Errorf("the index holds 2^32 distinct terms; run `memctl reindex`")
		}
		id = uint32(seq)
		if err := b.Put([]byte(term), binary.AppendUvarint(nil, seq)); err != nil {
			return 0, err
		}
	}
	e.ids[term] = id
	return id, nil
}

func readTermID(v []byte) (id uint32, ok bool, err error) {
	if v == nil {
		return 0, false, nil
	}
	n, k := binary.Uvarint(v)
	if k != len(v) || n == 0 || n > 1<<32-1 {
		return 0, false, errDamaged
	}
	return uint32(n), true, nil
}

// lookupTerm is term's id for a reader; ok is false when the index has
// never held term.
func (t *Tx) lookupTerm(term string) (uint32, bool, error) {
	id, ok, err := readTermID(t.bucket(bucketTerms).Get([]byte(term)))
	if err != nil {
		return 0, false, fmt.Errorf("term %q: %w", term, err)
	}
	return id, ok, nil
}

// flushPostings applies the transaction's queued posting and length
// edits, one write per touched block, in key order. A block that only
// gains postings with ids above its last one (the common case: ids are
// fresh) is appended to as bytes without being decoded.
func (t *Tx) flushPostings() error {
	e := t.postings
	if e == nil {
		return nil
	}
	t.postings = nil
	if err := t.flushLengths(e.lengths); err != nil {
		return err
	}
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
		if len(e.removes[k]) == 0 && slices.IsSortedFunc(adds, rank.ComparePostings) && (old == nil || adds[0].Chunk > rank.LastID(old, k.base())) {
			if err := b.Put(key, rank.AppendBlock(old, adds, k.base())); err != nil {
				return err
			}
			continue
		}
		list = list[:0]
		if old != nil {
			var err error
			if list, err = rank.DecodeBlock(old, k.base(), nil, list); err != nil {
				return fmt.Errorf("postings of term %d: %w", k.term, err)
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
		if err := b.Put(key, rank.AppendBlock(nil, list, k.base())); err != nil {
			return err
		}
	}
	return nil
}

// flushLengths writes each touched span's lengths once.
func (t *Tx) flushLengths(edits map[uint32]map[uint64]uint32) error {
	b := t.bucket(bucketLengths)
	for span, set := range edits {
		key := binary.BigEndian.AppendUint32(nil, span)
		l := rank.SetLengths(b.Get(key), set)
		var err error
		if len(l) == 0 {
			err = b.Delete(key)
		} else {
			err = b.Put(key, l)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// chunkLength is chunk id's length in terms as this transaction sees it,
// its own edits included.
func (t *Tx) chunkLength(id uint64) uint32 {
	if e := t.postings; e != nil {
		if l, ok := e.lengths[uint32(id>>blockShift)][id&(rank.BlockSpan-1)]; ok {
			return l
		}
	}
	return t.spanLengths(uint32(id >> blockShift)).At(id & (rank.BlockSpan - 1))
}

// spanLengths is one span's chunk lengths. A read transaction keeps each
// span's array once read (values stay valid until it ends), so a query
// reads it once, not once per term.
func (t *Tx) spanLengths(span uint32) rank.Lengths {
	if t.tx.Writable() {
		return t.bucket(bucketLengths).Get(binary.BigEndian.AppendUint32(nil, span))
	}
	for int(span) >= len(t.lengths) {
		t.lengths = append(t.lengths, nil)
		t.lengthsRead = append(t.lengthsRead, false)
	}
	if !t.lengthsRead[span] {
		t.lengths[span] = t.bucket(bucketLengths).Get(binary.BigEndian.AppendUint32(nil, span))
		t.lengthsRead[span] = true
	}
	return t.lengths[span]
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
	id, ok, err := t.lookupTerm(term)
	if !ok || err != nil {
		return dst, err
	}
	b := t.bucket(bucketPostings)
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 8)
	for block := uint32(0); block <= last; block++ {
		key = blockKey(key[:0], block, id)
		v := b.Get(key)
		if v == nil {
			continue
		}
		if dst, err = rank.DecodeBlock(v, uint64(block)<<blockShift, t.spanLengths(block), dst); err != nil {
			return dst, fmt.Errorf("postings of %q: %w", term, err)
		}
	}
	return dst, nil
}

// DocFreq is how many chunks hold term, counted without decoding their
// postings. Edits made earlier in the same Update are not visible.
func (t *Tx) DocFreq(term string) (int, error) {
	id, ok, err := t.lookupTerm(term)
	if !ok || err != nil {
		return 0, err
	}
	b := t.bucket(bucketPostings)
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 8)
	n := 0
	for block := uint32(0); block <= last; block++ {
		n += rank.BlockLen(b.Get(blockKey(key[:0], block, id)))
	}
	return n, nil
}

// ForEachTerm calls fn for every term of the lexical index with the number
// of chunks that hold it, in no particular order; a term whose postings
// are all gone is not visited. It reads every posting block's trailer
// once: the term dictionary typo tolerance is built from.
func (t *Tx) ForEachTerm(fn func(term string, df int)) error {
	df := make([]int, t.bucket(bucketTerms).Sequence()+1)
	c := t.bucket(bucketPostings).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		id := uint64(0)
		if len(k) == 8 {
			id = uint64(binary.BigEndian.Uint32(k[4:]))
		}
		if id == 0 || id >= uint64(len(df)) {
			return fmt.Errorf("posting key %x is damaged; run `memctl reindex`", k)
		}
		df[id] += rank.BlockLen(v)
	}
	return t.bucket(bucketTerms).ForEach(func(k, v []byte) error {
		id, _, err := readTermID(v)
		if err != nil || uint64(id) >= uint64(len(df)) {
			return fmt.Errorf("term %q: %w", k, errDamaged)
		}
		if df[id] > 0 {
			fn(string(k), df[id])
		}
		return nil
	})
}

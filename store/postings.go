package store

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	bolt "github.com/memd-dev/memd/internal/bbolt"

	"github.com/memd-dev/memd/rank"
)

// The lexical index is three buckets:
//
//   - terms: term → its id (a uvarint), ids taken from the bucket's
//     sequence when a term is first indexed and kept after its last
//     posting goes, so an id never changes meaning; termnames: id (4
//     bytes big-endian) → term, for reading a chunk's terms back
//     (ChunkTerms).
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
	// added are the chunks added in this transaction, in id order, with
	// their terms: their term ids are looked up (and new terms given ids)
	// all at once, in term order, when the transaction commits.
	added []addedChunk
	// addedAt is each added chunk's index in added.
	addedAt map[uint64]int
	// freshFrom is the first chunk id this transaction took from the
	// chunks' sequence (PutNote), 0 if none: no earlier transaction has
	// a chunk there or after, so a span that starts there holds no
	// posting block to read before writing it.
	freshFrom uint64
	removes   map[blockRef]map[uint64]bool // chunk ids to remove
	// lengths: span → chunk offset → the chunk's new length, 0 for a
	// chunk removed.
	lengths map[uint32]map[uint64]uint32
}

// addedChunk is a chunk added in this transaction, with its terms by
// string or numbered by vocab (NewChunk); both are nil once it is removed
// again.
type addedChunk struct {
	id    uint64
	terms []TermFreq
	nums  []TermNum
	vocab *Vocabulary
}

// termCount is how many terms c lists.
func (c *addedChunk) termCount() int { return len(c.terms) + len(c.nums) }

func (t *Tx) edits() *postingEdits {
	if t.postings == nil {
		t.postings = &postingEdits{
			addedAt: map[uint64]int{},
			removes: map[blockRef]map[uint64]bool{}, lengths: map[uint32]map[uint64]uint32{},
		}
	}
	return t.postings
}

// freshSpan says whether span holds no chunk of an earlier transaction,
// so none of its posting blocks is stored yet. Chunk ids start at 1.
func (e *postingEdits) freshSpan(span uint32) bool {
	return e.freshFrom != 0 && max(uint64(span)<<blockShift, 1) >= e.freshFrom
}

func (e *postingEdits) remove(term uint32, chunk uint64) {
	k := refOf(term, chunk)
	if e.removes[k] == nil {
		e.removes[k] = map[uint64]bool{}
	}
	e.removes[k][chunk] = true
}

func (e *postingEdits) setLength(chunk uint64, length uint32) {
	span := uint32(chunk >> blockShift)
	if e.lengths[span] == nil {
		e.lengths[span] = map[uint64]uint32{}
	}
	e.lengths[span][chunk&(rank.BlockSpan-1)] = length
}

// resolveAdded gives every term of the chunks added in this transaction
// its id, new terms the next ones, writes each added chunk's term record
// and returns its postings by block, in no order. Each term occurrence is hashed once: into the
// term cache, and for a term the cache lacks into a local index. Terms
// the cache lacks are looked up in sorted order: by a walk of the whole
// dictionary when the transaction holds many (a bulk index, where a
// lookup per term cost more than the rest of the write), else one Get
// each; new terms are written in order too. Postings are gathered per
// term before they are cut into blocks: a map operation per posting was
// most of a bulk commit's lexical work.
func (t *Tx) resolveAdded(e *postingEdits) ([]blockEdit, error) {
	cache := t.terms
	if cache == nil {
		cache = &termCache{} // a lexicon being rebuilt: nothing is known
	}
	// Each term's postings must ascend by chunk id: PutNote and the
	// migration add chunks in id order, and this keeps it so.
	if !slices.IsSortedFunc(e.added, func(a, b addedChunk) int { return compareU64(a.id, b.id) }) {
		slices.SortFunc(e.added, func(a, b addedChunk) int { return compareU64(a.id, b.id) })
	}
	n, distinct := 0, 0
	var vocabs []*Vocabulary // few: one a preparer's numbering
	var tops []int           // the highest number each of vocabs gives a term here
	for _, c := range e.added {
		n += c.termCount()
		if v := c.vocab; v != nil {
			i := slices.Index(vocabs, v)
			if i < 0 {
				i, vocabs, tops = len(vocabs), append(vocabs, v), append(tops, -1)
			}
			for _, tn := range c.nums {
				tops[i] = max(tops[i], int(tn.Num))
			}
		}
	}
	for i, v := range vocabs {
		v.reserve(tops[i])
		distinct += len(v.marks)
	}
	l := newTermLocals(cache, min(distinct, n))
	sc := &cache.scratch
	occ := sized(sc.occ, n)[:0] // each added term's local index, in the order of e.added
	for _, c := range e.added {
		for _, tf := range c.terms {
			i := l.of(tf.Term)
			occ = append(occ, i)
			l.counts[i]++
		}
		v := c.vocab
		for _, tn := range c.nums {
			m := v.mark(tn.Num)
			i := m.local
			if m.resolve != l.stamp {
				i = l.ofMark(m, v.Term(tn.Num))
				m.resolve, m.local = l.stamp, i
			}
			occ = append(occ, i)
			l.counts[i]++
		}
	}
	ids, counts := l.ids, l.counts
	if len(ids) == 0 {
		return nil, nil
	}
	if len(l.missTerms) > 0 {
		missIDs, err := t.termIDs(l.missTerms)
		if err != nil {
			return nil, err
		}
		for j, id := range missIDs {
			ids[l.missLocal[j]] = id
		}
		if t.terms != nil {
			t.tx.OnCommit(func() { t.terms.learn(l.missTerms, missIDs) })
		}
	}
	// One array holds every term's postings in runs, term by term:
	// counts become each run's next free place (a 4-byte cursor a term,
	// not a slice header) and end as each run's end.
	sc.occ = occ
	all := sized(sc.postings, len(occ))
	sc.postings = all
	at := int32(0)
	for i, n := range counts {
		counts[i], at = at, at+n
	}
	starts := slices.Clone(counts)
	for _, c := range e.added {
		for j, tf := range c.terms {
			li := occ[j]
			all[counts[li]] = Posting{Chunk: c.id, Freq: tf.Freq}
			counts[li]++
		}
		occ = occ[len(c.terms):]
		for j, tn := range c.nums {
			li := occ[j]
			all[counts[li]] = Posting{Chunk: c.id, Freq: tn.Freq}
			counts[li]++
		}
		occ = occ[len(c.nums):]
	}
	byID := make([]uint64, len(ids)) // id<<32 | local index, to sort
	for li, id := range ids {
		byID[li] = uint64(id)<<32 | uint64(li)
	}
	slices.Sort(byID)
	if err := t.putChunkTerms(e.added, byID, starts, counts, all, sc); err != nil {
		return nil, err
	}
	blocks := blocksInOrder(e.added, byID, starts, counts, all)
	e.added, e.addedAt = nil, map[uint64]int{}
	return blocks, nil
}

// blocksInOrder cuts each term's run of postings (putChunkTerms' starts,
// ends and all, byID its terms in id order) into one block a span, and
// returns the blocks in key order, span by span and in each by term id,
// so the commit needs no sort of them. Each term's postings ascend by
// chunk id, so each span's part of a run is one block, and no block is
// named twice; added spans the few spans the commit's chunks are in.
func blocksInOrder(added []addedChunk, byID []uint64, starts, ends []int32, all []Posting) []blockEdit {
	if len(added) == 0 {
		return nil
	}
	first := uint32(added[0].id >> blockShift)
	perSpan := make([]int, uint32(added[len(added)-1].id>>blockShift)-first+1)
	blocks := make([]blockEdit, 0, len(byID)) // a block a term at least
	for _, k := range byID {
		li, id := uint32(k), uint32(k>>32)
		list := all[starts[li]:ends[li]:ends[li]]
		for len(list) > 0 {
			span := list[0].Chunk >> blockShift
			n := 1
			for n < len(list) && list[n].Chunk>>blockShift == span {
				n++
			}
			blocks = append(blocks, blockEdit{ref: refOf(id, list[0].Chunk), adds: list[:n:n]})
			perSpan[uint32(span)-first]++
			list = list[n:]
		}
	}
	if len(perSpan) == 1 {
		return blocks
	}
	// By span, keeping each span's blocks in term order.
	at := 0
	for i, n := range perSpan {
		perSpan[i], at = at, at+n
	}
	out := make([]blockEdit, len(blocks))
	for _, be := range blocks {
		i := &perSpan[be.ref.block-first]
		out[*i] = be
		*i++
	}
	return out
}

// putChunkTerms writes the term record of each of added (but those
// removed again) from the commit's postings: all holds each term's run,
// local index li's from starts[li] to ends[li]; byID is the commit's
// terms as id<<32 | local index, in id order. A record lists its terms
// by id; instead of sorting each chunk's terms (a sort a chunk was 4% of
// indexing), the runs are read in term id order, each posting adding its
// term to its chunk's record, so every record comes out in order after
// one sort of the commit's distinct terms. Chunk ids are taken in
// sequence (PutNote), so added spans about as many ids as it holds
// chunks.
func (t *Tx) putChunkTerms(added []addedChunk, byID []uint64, starts, ends []int32, all []Posting, sc *commitScratch) error {
	if len(added) == 0 {
		return nil
	}
	first, last := added[0].id, added[0].id
	for _, c := range added {
		first, last = min(first, c.id), max(last, c.id)
	}
	next := make([]int32, last-first+1) // by chunk id - first: where its record's next term goes
	at := int32(0)
	for _, c := range added {
		next[c.id-first] = at
		at += int32(c.termCount())
	}
	recs := sized(sc.recs, int(at))
	sc.recs = recs
	for _, k := range byID {
		li, id := uint32(k), uint32(k>>32)
		for _, p := range all[starts[li]:ends[li]] {
			i := &next[p.Chunk-first]
			recs[*i] = packTermFreq(id, p.Freq)
			*i++
		}
	}
	b := t.bucket(bucketChunkTerms)
	a := t.arena()
	from := 0
	for _, c := range added {
		rec := recs[from : from+c.termCount()]
		from += c.termCount()
		if c.terms == nil && c.nums == nil {
			continue
		}
		if err := b.Put(u64key(c.id), a.claim(encodeTermIDs(a.room(3*len(rec)), rec))); err != nil {
			return err
		}
	}
	return nil
}

// resolveStamps numbers resolveAdded's calls, in every store: a term
// cache entry or Vocabulary mark stamped with the running call's number
// holds that call's local index.
var resolveStamps atomic.Uint64

// termLocals gives each distinct term of a commit its local index: from
// the term cache, or for a term the cache lacks from a map of the
// commit's own, whose terms are looked up in the dictionary after.
type termLocals struct {
	cache     *termCache
	stamp     uint64
	missed    map[string]int32
	missTerms []string
	missLocal []int32
	ids       []uint32 // by local index; 0 until a missed term is resolved
	counts    []int32  // postings by local index
}

// newTermLocals makes the locals of a commit of about distinct terms.
// Its map and slices are sized for them when the cache knows none (a
// first index, where every term is new); else most terms are the
// cache's, and they grow from small.
func newTermLocals(cache *termCache, distinct int) termLocals {
	if len(cache.index) > 0 {
		distinct = 0
	}
	return termLocals{
		cache: cache, stamp: resolveStamps.Add(1), missed: make(map[string]int32, distinct),
		missTerms: make([]string, 0, distinct), missLocal: make([]int32, 0, distinct),
		ids: make([]uint32, 0, distinct), counts: make([]int32, 0, distinct),
	}
}

func (l *termLocals) of(term string) int32 {
	if ci, ok := l.cache.index[term]; ok {
		return l.cached(ci)
	}
	return l.miss(term)
}

// ofMark is of for a numbered term, m its mark: a mark that names the
// term's entry in this very cache (its generation) costs no hash of the
// term's string, which at 100k notes, where later commits mostly meet
// terms known since earlier ones, was still a twentieth of indexing.
// A mark learns its entry only from a cache hit, so from a committed id.
func (l *termLocals) ofMark(m *vocabMark, term string) int32 {
	if m.cacheGen != 0 && m.cacheGen == l.cache.gen {
		return l.cached(m.entry)
	}
	ci, ok := l.cache.index[term]
	if !ok {
		return l.miss(term)
	}
	m.entry, m.cacheGen = ci, l.cache.gen
	return l.cached(ci)
}

// cached is the local index of the term of cache entry ci.
func (l *termLocals) cached(ci int32) int32 {
	en := &l.cache.entries[ci]
	if en.resolve != l.stamp {
		en.resolve, en.local = l.stamp, int32(len(l.ids))
		l.ids, l.counts = append(l.ids, en.id), append(l.counts, 0)
	}
	return en.local
}

// miss is the local index of a term the cache lacks.
func (l *termLocals) miss(term string) int32 {
	i, ok := l.missed[term]
	if !ok {
		i = int32(len(l.ids))
		l.missed[term] = i
		l.missTerms, l.missLocal = append(l.missTerms, term), append(l.missLocal, i)
		l.ids, l.counts = append(l.ids, 0), append(l.counts, 0)
	}
	return i
}

// blockEdit is one posting block a commit writes: postings to add to it,
// and those of e.removes[ref] to remove.
type blockEdit struct {
	ref  blockRef
	adds []Posting
}

// termIDs returns the id of each of terms, giving new terms the next ids.
func (t *Tx) termIDs(terms []string) ([]uint32, error) {
	order := termOrder(terms)
	b := t.bucket(bucketTerms)
	ids := make([]uint32, len(terms))
	if err := lookupTerms(b, terms, order, func(i int32, id uint32) { ids[i] = id }); err != nil {
		return nil, err
	}
	// New ids go in order of first sight, so a chunk's common terms have
	// the small ids and its term record small gaps (SciFact's records
	// took 18% more bytes with ids in term order); the writes go in term
	// order.
	isNew := make([]bool, len(terms))
	before := b.Sequence()
	for i := range terms {
		if ids[i] != 0 {
			continue
		}
		seq, err := b.NextSequence()
		if err != nil {
			return nil, err
		}
		if seq > 1<<32-1 {
			return nil, fmt.Errorf("the index holds 2^32 distinct terms; run `memctl reindex`")
		}
		ids[i], isNew[i] = uint32(seq), true
	}
	if b.Sequence()-before > before {
		// Most of the dictionary is new (a first index): pack its pages,
		// as later commits add few terms to them. bbolt splits pages
		// when the transaction commits, by the fill percent it has then.
		b.FillPercent = 0.9
	}
	for _, i := range order {
		if isNew[i] {
			if err := b.Put([]byte(terms[i]), binary.AppendUvarint(nil, uint64(ids[i]))); err != nil {
				return nil, err
			}
		}
	}
	names := t.bucket(bucketTermNames)
	for i, term := range terms { // ids ascend in this order
		if isNew[i] {
			if err := names.Put(binary.BigEndian.AppendUint32(nil, ids[i]), []byte(term)); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

// termOrder is the indexes of terms in term order. It sorts each term's
// first 8 bytes packed into an integer beside its index, and compares
// the strings only where those are equal: a first index sorts tens of
// thousands of new terms, and a comparison that loads two strings through
// their headers was most of that sort.
func termOrder(terms []string) []int32 {
	type keyed struct {
		prefix uint64
		i      int32
	}
	ks := make([]keyed, len(terms))
	for i, term := range terms {
		ks[i] = keyed{prefix: termPrefix(term), i: int32(i)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.prefix != b.prefix {
			return compareU64(a.prefix, b.prefix)
		}
		return strings.Compare(terms[a.i], terms[b.i])
	})
	order := make([]int32, len(terms))
	for j, k := range ks {
		order[j] = k.i
	}
	return order
}

// termPrefix is term's first 8 bytes big-endian, zero-padded: prefixes
// order as their terms do, and terms of equal prefixes need a compare.
func termPrefix(term string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(term) {
			p |= uint64(term[i])
		}
	}
	return p
}

// lookupTerms calls found with the index and id of each of terms that the
// dictionary b holds, visiting them in order (their indexes in term
// order).
func lookupTerms(b *bolt.Bucket, terms []string, order []int32, found func(i int32, id uint32)) error {
	// A walk reads every key of the dictionary; a Get costs a few
	// descents of the tree. Walk when the terms are a good share of it.
	if uint64(len(terms))*16 < b.Sequence() {
		for _, i := range order {
			id, ok, err := readTermID(b.Get([]byte(terms[i])))
			if err != nil {
				return fmt.Errorf("term %q: %w", terms[i], err)
			}
			if ok {
				found(i, id)
			}
		}
		return nil
	}
	c := b.Cursor()
	k, v := c.First()
	for _, i := range order {
		term := terms[i]
		for k != nil && string(k) < term {
			k, v = c.Next()
		}
		if k == nil {
			break
		}
		if string(k) == term {
			id, _, err := readTermID(v)
			if err != nil {
				return fmt.Errorf("term %q: %w", term, err)
			}
			found(i, id)
		}
	}
	return nil
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
	id, ok, err := readTermID(t.get(bucketTerms, []byte(term)))
	if err != nil {
		return 0, false, fmt.Errorf("term %q: %w", term, err)
	}
	return id, ok, nil
}

// flushPostings applies the transaction's queued posting and length
// edits, one write per touched block, in key order. A block that only
// gains postings with ids above its last one (the common case: ids are
// fresh) is appended to as bytes without being decoded. Blocks are cut
// from the transaction's arena.
func (t *Tx) flushPostings() error {
	e := t.postings
	if e == nil {
		return nil
	}
	t.postings = nil
	blocks, err := t.resolveAdded(e)
	if err != nil {
		return err
	}
	if err := t.flushLengths(e.lengths); err != nil {
		return err
	}
	if len(e.removes) > 0 {
		adding := make(map[blockRef]bool, len(blocks))
		for _, be := range blocks {
			adding[be.ref] = true
		}
		for k := range e.removes {
			if !adding[k] {
				blocks = append(blocks, blockEdit{ref: k})
			}
		}
		slices.SortFunc(blocks, func(a, b blockEdit) int { return compareRefs(a.ref, b.ref) })
	}
	b := t.bucket(bucketPostings)
	a := t.arena()
	var list []Posting
	for _, be := range blocks {
		k, adds := be.ref, be.adds
		key := k.key()
		var old []byte
		if !e.freshSpan(k.block) {
			old = t.get(bucketPostings, key)
		}
		// adds ascend (resolveAdded), so they append to a block whose
		// postings all come before them without decoding it.
		if len(e.removes[k]) == 0 && (old == nil || adds[0].Chunk > rank.LastID(old, k.base())) {
			block := rank.AppendBlock(a.room(rank.BlockSize(old, adds)), old, adds, k.base())
			if err := b.Put(key, a.claim(block)); err != nil {
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
		if err := b.Put(key, a.claim(rank.AppendBlock(a.room(rank.BlockSize(nil, list)), nil, list, k.base()))); err != nil {
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
		l := rank.SetLengths(t.get(bucketLengths, key), set)
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
		return t.get(bucketLengths, binary.BigEndian.AppendUint32(nil, span))
	}
	for int(span) >= len(t.lengths) {
		t.lengths = append(t.lengths, nil)
		t.lengthsRead = append(t.lengthsRead, false)
	}
	if !t.lengthsRead[span] {
		t.lengths[span] = t.get(bucketLengths, binary.BigEndian.AppendUint32(nil, span))
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
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 8)
	for block := uint32(0); block <= last; block++ {
		key = blockKey(key[:0], block, id)
		v := t.get(bucketPostings, key)
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
// postings; 0 for a term the index does not hold, or whose dictionary
// entry is damaged (Check reports that). Edits made earlier in the same
// Update are not visible.
func (t *Tx) DocFreq(term string) int {
	id, ok, err := t.lookupTerm(term)
	if !ok || err != nil {
		return 0
	}
	last := uint32(t.MaxChunkID() >> blockShift)
	key := make([]byte, 0, 8)
	n := 0
	for block := uint32(0); block <= last; block++ {
		n += rank.BlockLen(t.get(bucketPostings, blockKey(key[:0], block, id)))
	}
	return n
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

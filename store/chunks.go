package store

import (
	"encoding/binary"
	"fmt"
)

// Chunk is a span of a note that recall returns. Lines are 1-based and
// inclusive.
type Chunk struct {
	ID        uint64   `json:"id"`
	Path      string   `json:"path"`
	Folder    string   `json:"folder"`
	Ordinal   int      `json:"ordinal"` // position within the note
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Heading   []string `json:"heading,omitempty"`
	Title     string   `json:"title,omitempty"`
	Text      string   `json:"text"`
	Summary   string   `json:"summary,omitempty"`
}

// TermFreq is one term of a chunk and how often it occurs there (weighted:
// a term in a title may count more than once).
type TermFreq struct {
	Term string
	Freq uint32
}

// TermNum is TermFreq for a term numbered in its chunk's Vocabulary: 8
// bytes where a TermFreq is 24, the string kept once in the Vocabulary
// rather than in each chunk's list (the lists were a quarter of the
// bytes a Dendron note's preparation allocated).
type TermNum struct {
	Num  uint32
	Freq uint32
}

// NewChunk is a chunk to store, with its terms for the lexical index:
// Terms, or when Vocab is not nil Nums, numbered by it.
type NewChunk struct {
	Chunk
	Terms []TermFreq
	Nums  []TermNum
	Vocab *Vocabulary
}

// HasTerms says whether c has a term to index.
func (c *NewChunk) HasTerms() bool { return len(c.Terms)+len(c.Nums) > 0 }

// termsLength is c's length in terms: the sum of its frequencies.
func (c *NewChunk) termsLength() uint32 {
	var n uint32
	for _, tf := range c.Terms {
		n += tf.Freq
	}
	for _, tn := range c.Nums {
		n += tn.Freq
	}
	return n
}

func (t *Tx) putChunk(c *Chunk) error {
	a := t.arena()
	return t.bucket(bucketChunks).Put(u64key(c.ID), a.claim(encodeChunk(a.room(chunkRecordSize(c)), c)))
}

// Chunk returns the chunk with id, or ErrNotFound.
func (t *Tx) Chunk(id uint64) (*Chunk, error) {
	v := t.get(bucketChunks, u64key(id))
	if v == nil {
		return nil, fmt.Errorf("chunk %d: %w", id, ErrNotFound)
	}
	var c Chunk
	if err := decodeChunk(v, &c); err != nil {
		return nil, fmt.Errorf("chunk %d: %w", id, err)
	}
	return &c, nil
}

// ChunkPath returns the path of chunk id's note, or ErrNotFound. It reads
// that field alone, not the chunk's text, for callers that keep or drop a
// chunk by its note: a recall narrowed to a folder may drop most it ranks.
func (t *Tx) ChunkPath(id uint64) (string, error) {
	v := t.get(bucketChunks, u64key(id))
	if v == nil {
		return "", fmt.Errorf("chunk %d: %w", id, ErrNotFound)
	}
	path, err := decodeChunkPath(v)
	if err != nil {
		return "", fmt.Errorf("chunk %d: %w", id, err)
	}
	return path, nil
}

// ForEachChunk calls fn for every chunk in id order.
func (t *Tx) ForEachChunk(fn func(c *Chunk) error) error {
	return t.bucket(bucketChunks).ForEach(func(k, v []byte) error {
		var c Chunk
		if err := decodeChunk(v, &c); err != nil {
			return fmt.Errorf("chunk %x: %w", k, err)
		}
		return fn(&c)
	})
}

// addChunkTerms queues the chunk's postings and its term record (to
// delete its postings later, and for ChunkTerms), written when the
// transaction commits (resolveAdded), and records its length. The
// record is the chunk's distinct term ids ascending, each as a uvarint
// gap and its frequency: a delete needs no more, since the chunk's length
// is kept in its span's lengths. It keeps c's term lists until then, not
// a copy.
func (t *Tx) addChunkTerms(id uint64, c *NewChunk) error {
	switch {
	case c.Vocab == nil && len(c.Nums) > 0:
		return fmt.Errorf("chunk %d: numbered terms without a vocabulary", id)
	case c.Vocab != nil && len(c.Terms) > 0:
		return fmt.Errorf("chunk %d: terms by string beside a vocabulary", id)
	}
	e := t.edits()
	e.addedAt[id] = len(e.added)
	e.added = append(e.added, addedChunk{id: id, terms: c.Terms, nums: c.Nums, vocab: c.Vocab})
	e.setLength(id, c.termsLength())
	if !c.HasTerms() {
		return t.bucket(bucketChunkTerms).Put(u64key(id), nil)
	}
	return nil
}

// packTermFreq is a term of a chunk, by id, and its frequency there, in
// one word.
func packTermFreq(id, freq uint32) uint64 { return uint64(id)<<32 | uint64(freq) }

// encodeTermIDs appends to buf the chunk term record of terms
// (packTermFreq), which are in id order: terms by id ascending, a term
// listed twice counted once with the sum of its frequencies. Most take
// under 3 bytes a term.
func encodeTermIDs(buf []byte, terms []uint64) []byte {
	prev := uint32(0)
	for i := 0; i < len(terms); {
		id, freq := uint32(terms[i]>>32), uint32(terms[i])
		for i++; i < len(terms) && uint32(terms[i]>>32) == id; i++ {
			freq += uint32(terms[i])
		}
		buf = binary.AppendUvarint(buf, uint64(id-prev))
		buf = binary.AppendUvarint(buf, uint64(freq))
		prev = id
	}
	return buf
}

// decodeTermIDs calls fn with each term id and frequency of a chunk term
// record, in id order.
func decodeTermIDs(rec []byte, fn func(id, freq uint32)) error {
	var id uint64
	for len(rec) > 0 {
		gap, n := binary.Uvarint(rec)
		if n <= 0 || gap == 0 || id+gap > 1<<32-1 {
			return errDamaged
		}
		freq, m := binary.Uvarint(rec[n:])
		if m <= 0 || freq > 1<<32-1 {
			return errDamaged
		}
		rec, id = rec[n+m:], id+gap
		fn(uint32(id), uint32(freq))
	}
	return nil
}

// deleteChunk removes a chunk, its term record, its postings and its
// vectors under fps, and returns its length in terms.
func (t *Tx) deleteChunk(id uint64, fps []string) (uint32, error) {
	key := u64key(id)
	e := t.edits()
	if i, ok := e.addedAt[id]; ok {
		// Added in this transaction: its postings are not written yet.
		e.added[i].terms, e.added[i].nums = nil, nil
		delete(e.addedAt, id)
	}
	err := decodeTermIDs(t.get(bucketChunkTerms, key), func(tid, _ uint32) { e.remove(tid, id) })
	if err != nil {
		return 0, fmt.Errorf("chunk %d: term record: %w", id, err)
	}
	length := t.chunkLength(id)
	e.setLength(id, 0)
	if err := t.bucket(bucketChunkTerms).Delete(key); err != nil {
		return 0, err
	}
	if err := t.deleteVectorsOf(id, fps); err != nil {
		return 0, err
	}
	return length, t.bucket(bucketChunks).Delete(key)
}

// MaxChunkID is the highest chunk id ever assigned; every stored chunk's id
// is at most this.
func (t *Tx) MaxChunkID() uint64 { return t.bucket(bucketChunks).Sequence() }

// ChunkTerms calls fn for each term of chunk id with its weighted
// frequency there, from the record its postings are deleted by: what
// query expansion reads of the chunks a first pass found. A chunk that is
// gone has no terms. Edits made earlier in the same Update are not
// visible.
func (t *Tx) ChunkTerms(id uint64, fn func(term string, freq uint32)) error {
	var missing uint32
	err := decodeTermIDs(t.get(bucketChunkTerms, u64key(id)), func(tid, freq uint32) {
		name := t.get(bucketTermNames, binary.BigEndian.AppendUint32(nil, tid))
		if name == nil {
			missing = tid
			return
		}
		fn(string(name), freq)
	})
	if err == nil && missing != 0 {
		err = fmt.Errorf("term %d has no name: %w", missing, errDamaged)
	}
	if err != nil {
		return fmt.Errorf("chunk %d: term record: %w", id, err)
	}
	return nil
}

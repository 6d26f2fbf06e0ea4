package store

import (
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

// NewChunk is a chunk to store, with its terms for the lexical index.
type NewChunk struct {
	Chunk
	Terms []TermFreq
}

func termsLength(terms []TermFreq) uint32 {
	var n uint32
	for _, tf := range terms {
		n += tf.Freq
	}
	return n
}

func (t *Tx) putChunk(c *Chunk) error {
	return t.bucket(bucketChunks).Put(u64key(c.ID), encodeChunk(c))
}

// Chunk returns the chunk with id, or ErrNotFound.
func (t *Tx) Chunk(id uint64) (*Chunk, error) {
	v := t.bucket(bucketChunks).Get(u64key(id))
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
	v := t.bucket(bucketChunks).Get(u64key(id))
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

// addChunkTerms records the chunk's terms (to delete its postings later) and
// queues its postings.
func (t *Tx) addChunkTerms(id uint64, terms []TermFreq) error {
	length := termsLength(terms)
	var w recordWriter
	for _, tf := range terms {
		w.str(tf.Term)
		w.uint(uint64(tf.Freq))
		t.edits().add(tf.Term, Posting{Chunk: id, Freq: tf.Freq, Length: length})
	}
	return t.bucket(bucketChunkTerms).Put(u64key(id), w.b)
}

// deleteChunk removes a chunk, its term record, its postings and its
// vectors under fps, and returns its length in terms.
func (t *Tx) deleteChunk(id uint64, fps []string) (uint32, error) {
	key := u64key(id)
	r := recordReader{b: t.bucket(bucketChunkTerms).Get(key)}
	var length uint32
	for len(r.b) > 0 {
		term := r.str()
		length += uint32(r.uint())
		if r.err == nil {
			t.edits().remove(term, id)
		}
	}
	if err := r.done(); err != nil {
		return 0, fmt.Errorf("chunk %d: term record: %w", id, err)
	}
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
// gone has no terms.
func (t *Tx) ChunkTerms(id uint64, fn func(term string, freq uint32)) error {
	r := recordReader{b: t.bucket(bucketChunkTerms).Get(u64key(id))}
	for len(r.b) > 0 && r.err == nil {
		term := r.str()
		freq := r.uint()
		if r.err == nil {
			fn(term, uint32(freq))
		}
	}
	if err := r.done(); err != nil {
		return fmt.Errorf("chunk %d: term record: %w", id, err)
	}
	return nil
}

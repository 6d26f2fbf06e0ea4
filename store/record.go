package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"time"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// Note and chunk records are written in a compact binary form: a leading
// recordBinary byte, then each field in order as uvarints (integers),
// length-prefixed bytes (strings) and counted lists. Indexing writes one
// note and several chunks per file and recall reads chunks for every hit,
// where encoding/json cost a tenth of indexing's CPU. Schema 1 stores wrote
// JSON, which starts with '{'; those records still decode.
const recordBinary = 0x01

// recordNoteAliases leads a note record that ends with the note's aliases,
// the form notes are written in since aliases were added; a note record
// led by recordBinary still decodes, with no aliases.
const recordNoteAliases = 0x02

// recordChunkS2 leads a chunk record whose text is compressed with s2
// (github.com/klauspost/compress/s2), the form chunks are written in when
// that saves at least a sixteenth of the text; the rest stay led by
// recordBinary. Text is most of the store, and s2 decodes a hit's text in
// about a microsecond where zstd, which packs SciFact's chunks 2.0× to
// s2's 1.45×, took five times as long (BENCHMARKS.md).
const recordChunkS2 = 0x03

var errDamaged = errors.New("record is damaged; `memctl reindex` rebuilds it")

type recordWriter struct{ b []byte }

func (w *recordWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *recordWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *recordWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *recordWriter) strs(s []string) {
	w.uint(uint64(len(s)))
	for _, x := range s {
		w.str(x)
	}
}

// time writes 0 for the zero time, else 1 and the Unix nanoseconds.
func (w *recordWriter) time(t time.Time) {
	if t.IsZero() {
		w.uint(0)
		return
	}
	w.uint(1)
	w.int(t.UnixNano())
}

// recordReader reads fields in the order recordWriter wrote them; the first
// error sticks and later reads return zero values.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) { // every element takes at least a byte
		r.fail()
		return 0
	}
	return int(n)
}

func (r *recordReader) str() string { return string(r.raw()) }

// raw reads a length-prefixed field without copying it.
func (r *recordReader) raw() []byte {
	n := r.count()
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

func (r *recordReader) strs() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// unpack reads an s2-compressed field as a string.
func (r *recordReader) unpack() string {
	packed := r.raw()
	n, err := s2.DecodedLen(packed)
	if err != nil || n > maxTextLen {
		r.fail()
		return ""
	}
	text := make([]byte, n)
	if _, err := s2.Decode(text, packed); err != nil {
		r.fail()
		return ""
	}
	// text is referenced nowhere else: it becomes the string as it is,
	// without the copy string(text) would make for every hit's text.
	return unsafe.String(unsafe.SliceData(text), n)
}

// maxTextLen bounds a chunk's text as a damaged record may claim it, so a
// bad length cannot make unpack allocate without bound.
const maxTextLen = 1 << 30

func (r *recordReader) time() time.Time {
	if r.uint() == 0 {
		return time.Time{}
	}
	return time.Unix(0, r.int())
}

func (r *recordReader) small() int {
	v := r.uint()
	if v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *recordReader) fail() {
	if r.err == nil {
		r.err = errDamaged
	}
	r.b = nil
}

// done reports the first error, or a damaged record when bytes are left.
func (r *recordReader) done() error {
	if r.err == nil && len(r.b) > 0 {
		r.err = errDamaged
	}
	return r.err
}

// noteRecordSize is about the size of n's record: room enough for most.
func noteRecordSize(n *Note) int { return 256 + len(n.Path) + len(n.Summary) + 16*len(n.Blocks) }

// encodeNote writes n's record into dst's room (dst[:0]), or into bytes
// of its own when that is too small.
func encodeNote(dst []byte, n *Note) []byte {
	w := recordWriter{b: dst[:0]}
	if size := noteRecordSize(n); cap(w.b) < size {
		w.b = make([]byte, 0, size)
	}
	w.b = append(w.b, recordNoteAliases)
	w.str(n.Path)
	w.str(n.Folder)
	w.int(n.Size)
	w.time(n.ModTime)
	w.str(n.Hash)
	w.str(n.Title)
	w.strs(n.Tags)
	w.strs(n.Links)
	w.strs(n.Blocks)
	w.str(n.Summary)
	w.str(n.Chunker)
	w.time(n.IndexedAt)
	w.uint(uint64(len(n.Chunks)))
	prev := uint64(0)
	for _, id := range n.Chunks { // ascending as assigned, so deltas are small
		w.int(int64(id - prev))
		prev = id
	}
	w.strs(n.Aliases)
	return w.b
}

func decodeNote(v []byte, n *Note) error {
	r, binary, err := openRecord(v, n, recordNoteAliases)
	if !binary {
		return err
	}
	n.Path = r.str()
	n.Folder = r.str()
	n.Size = r.int()
	n.ModTime = r.time()
	n.Hash = r.str()
	n.Title = r.str()
	n.Tags = r.strs()
	n.Links = r.strs()
	n.Blocks = r.strs()
	n.Summary = r.str()
	n.Chunker = r.str()
	n.IndexedAt = r.time()
	n.Chunks = make([]uint64, r.count())
	prev := uint64(0)
	for i := range n.Chunks {
		prev += uint64(r.int())
		n.Chunks[i] = prev
	}
	if v[0] == recordNoteAliases {
		n.Aliases = r.strs()
	}
	return r.done()
}

// openRecord reads a stored record as it is written: schema 1's JSON it
// decodes into jsonDst itself (binary false, with its error), and for a
// binary one, led by recordBinary or by form, it returns a reader over the
// fields (binary true). Each
// decoder reads its fields itself rather than through a callback, which
// would move the reader to the heap on every decode.
func openRecord(v []byte, jsonDst any, form byte) (r recordReader, binary bool, err error) {
	if len(v) > 0 && v[0] == '{' {
		return recordReader{}, false, json.Unmarshal(v, jsonDst)
	}
	if len(v) == 0 || v[0] != recordBinary && v[0] != form {
		return recordReader{}, false, errDamaged
	}
	return recordReader{b: v[1:]}, true, nil
}

// chunkRecordSize is the room c's record is written in: its fields, and
// the most its text can take compressed.
func chunkRecordSize(c *Chunk) int {
	size := 64 + len(c.Path) + len(c.Folder) + len(c.Title) + len(c.Summary) + max(s2.MaxEncodedLen(len(c.Text)), len(c.Text))
	for _, h := range c.Heading {
		size += len(h) + 2
	}
	return size
}

// encodeChunk writes c's record into dst's room (dst[:0]), or into bytes
// of its own when that is smaller than chunkRecordSize. It compresses the
// chunk's text into the record's own spare room, past the fields before
// it and room for its length, so a chunk costs no copy of the text or of
// the compressed text (a tenth of a bulk add's allocation). s2's fast
// mode, not EncodeBetter: on the corpora measured it stores within 1.5% of
// EncodeBetter's bytes (Dendron 0.735 of the text against 0.732, SciFact
// 0.764 against 0.753) in 60% of the time, which was 4% of a 100k-note
// add on the benchmark host.
func encodeChunk(dst []byte, c *Chunk) []byte {
	text := unsafe.Slice(unsafe.StringData(c.Text), len(c.Text)) // s2 only reads it
	w := recordWriter{b: dst[:0]}
	if size := chunkRecordSize(c); cap(w.b) < size {
		w.b = make([]byte, 0, size)
	}
	w.b = append(w.b, recordBinary)
	w.uint(c.ID)
	w.str(c.Path)
	w.str(c.Folder)
	w.uint(uint64(c.Ordinal))
	w.uint(uint64(c.StartLine))
	w.uint(uint64(c.EndLine))
	w.strs(c.Heading)
	w.str(c.Title)
	var spare []byte
	if at := len(w.b) + binary.MaxVarintLen64; at < cap(w.b) {
		spare = w.b[at:cap(w.b)]
	}
	if packed := s2.Encode(spare, text); len(packed) <= len(text)-len(text)/16 {
		w.b[0] = recordChunkS2
		w.uint(uint64(len(packed)))
		w.b = append(w.b, packed...) // moves packed down to just after its length
	} else {
		w.uint(uint64(len(text)))
		w.b = append(w.b, text...)
	}
	w.str(c.Summary)
	return w.b
}

func decodeChunk(v []byte, c *Chunk) error {
	r, binary, err := openRecord(v, c, recordChunkS2)
	if !binary {
		return err
	}
	c.ID = r.uint()
	c.Path = r.str()
	c.Folder = r.str()
	c.Ordinal = r.small()
	c.StartLine = r.small()
	c.EndLine = r.small()
	c.Heading = r.strs()
	c.Title = r.str()
	if v[0] == recordChunkS2 {
		c.Text = r.unpack()
	} else {
		c.Text = r.str()
	}
	c.Summary = r.str()
	return r.done()
}

// decodeChunkPath reads a chunk record's path, the field after its id, and
// nothing past it: a filtered recall reads the path of every chunk it
// rejects.
func decodeChunkPath(v []byte) (string, error) {
	if len(v) > 0 && v[0] == '{' {
		// Read here rather than by openRecord, whose JSON destination
		// would be allocated for binary records too.
		var c struct {
			Path string `json:"path"`
		}
		err := json.Unmarshal(v, &c)
		return c.Path, err
	}
	r, _, err := openRecord(v, nil, recordChunkS2)
	if err != nil {
		return "", err
	}
	r.uint()
	path := r.str()
	if r.err != nil {
		return "", r.err
	}
	return path, nil
}

// peekNote reads the folder and hash of note record v and, when blocks is
// not nil, its blocks (appended to blocks[:0]), decoding no other field:
// what a scan of every note needs of each (the hash index's build, a
// settle's search for a block's holders). They are v's bytes, but for
// schema 1's JSON, decoded whole. ok is false when v does not decode.
func peekNote(v []byte, blocks [][]byte) (folder, hash []byte, _ [][]byte, ok bool) {
	if len(v) > 0 && v[0] == '{' {
		var n Note
		if err := decodeNote(v, &n); err != nil {
			return nil, nil, blocks, false
		}
		if blocks != nil {
			blocks = blocks[:0]
			for _, b := range n.Blocks {
				blocks = append(blocks, []byte(b))
			}
		}
		return []byte(n.Folder), []byte(n.Hash), blocks, true
	}
	if len(v) == 0 || v[0] != recordBinary && v[0] != recordNoteAliases {
		return nil, nil, blocks, false
	}
	r := recordReader{b: v[1:]}
	r.raw() // path
	folder = r.raw()
	r.int() // size
	r.time()
	hash = r.raw()
	if blocks != nil {
		blocks = blocks[:0]
		r.raw()       // title
		for range 2 { // tags, links
			for n := r.count(); n > 0; n-- {
				r.raw()
			}
		}
		for n := r.count(); n > 0; n-- {
			blocks = append(blocks, r.raw())
		}
	}
	return folder, hash, blocks, r.err == nil
}

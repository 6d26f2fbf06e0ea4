package rank

import (
	"encoding/binary"
	"errors"
	"slices"
)

// Posting is one chunk that holds a term: what BM25 reads of the index.
type Posting struct {
	Chunk  uint64
	Freq   uint32 // weighted frequency of the term in the chunk
	Length uint32 // the chunk's length in terms
}

// ComparePostings orders postings by chunk id.
func ComparePostings(a, b Posting) int {
	switch {
	case a.Chunk < b.Chunk:
		return -1
	case a.Chunk > b.Chunk:
		return 1
	}
	return 0
}

// BlockSpan is how many chunk ids one posting block covers: the store
// keeps one block per term per span (store/postings.go), and one Lengths
// array per span.
const BlockSpan = 1 << 13

// A block is a run of one term's postings within one span of chunk ids,
// sorted by id. Each posting is a uvarint of its id's gap from the one
// before (from the span's first id for the first) shifted left by one, the
// low bit set when the frequency is 1, followed by the frequency as a
// uvarint only when it is not 1; most postings of a span take one or two
// bytes. Chunk lengths are not in the postings: a chunk's length is the
// same for all its terms, so it is kept once, in the span's Lengths.
//
// A four-byte trailer ends the block: the last posting's offset in the
// span and the count of postings, each big-endian uint16 (a span holds
// 8,192 ids), so appending and counting need no decoding.
const trailerLen = 4

// ErrDamagedBlock is a block that does not decode.
var ErrDamagedBlock = errors.New("posting block is damaged; run `memctl reindex`")

// blockTrailer returns block's last offset and count; ok is false for a
// block too short to hold a trailer.
func blockTrailer(block []byte) (last uint64, n int, ok bool) {
	if len(block) < trailerLen {
		return 0, 0, false
	}
	t := block[len(block)-trailerLen:]
	return uint64(binary.BigEndian.Uint16(t)), int(binary.BigEndian.Uint16(t[2:])), true
}

// LastID is the highest chunk id in block, a block of the span starting
// at base; base itself for an empty block.
func LastID(block []byte, base uint64) uint64 {
	last, _, _ := blockTrailer(block)
	return base + last
}

// AppendBlock appends to dst a block of the span starting at base that
// holds old's postings followed by list, and returns it; list is sorted
// and its ids are above old's last one. old is not modified. BlockSize
// is about the room it takes.
func AppendBlock(dst, old []byte, list []Posting, base uint64) []byte {
	body, prev := old, base
	n := 0
	if last, count, ok := blockTrailer(old); ok {
		body, prev, n = old[:len(old)-trailerLen], base+last, count
	}
	buf := append(slices.Grow(dst, BlockSize(old, list)), body...)
	for _, p := range list {
		gap := p.Chunk - prev
		if p.Freq == 1 {
			buf = binary.AppendUvarint(buf, gap<<1|1)
		} else {
			buf = binary.AppendUvarint(buf, gap<<1)
			buf = binary.AppendUvarint(buf, uint64(p.Freq))
		}
		prev = p.Chunk
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(prev-base))
	return binary.BigEndian.AppendUint16(buf, uint16(n+len(list)))
}

// BlockSize is the room AppendBlock of old and list takes, unless some
// of list's gaps or frequencies take more than two bytes.
func BlockSize(old []byte, list []Posting) int { return len(old) + 2*len(list) + trailerLen }

// DecodeBlock appends block's postings, of the span starting at base, to
// dst, each with its chunk's length from lengths.
func DecodeBlock(block []byte, base uint64, lengths Lengths, dst []Posting) ([]Posting, error) {
	last, n, ok := blockTrailer(block)
	if !ok {
		return dst, ErrDamagedBlock
	}
	v := block[:len(block)-trailerLen]
	id := base
	start := len(dst)
	for len(v) > 0 {
		g, k := binary.Uvarint(v)
		if k <= 0 {
			return dst, ErrDamagedBlock
		}
		v = v[k:]
		freq := uint64(1)
		if g&1 == 0 {
			if freq, k = binary.Uvarint(v); k <= 0 {
				return dst, ErrDamagedBlock
			}
			v = v[k:]
		}
		id += g >> 1
		dst = append(dst, Posting{Chunk: id, Freq: uint32(freq), Length: lengths.At(id - base)})
	}
	if len(dst)-start != n || id != base+last || last >= BlockSpan {
		return dst, ErrDamagedBlock
	}
	return dst, nil
}

// BlockLen is how many postings block holds, read from its trailer.
func BlockLen(block []byte) int {
	_, n, _ := blockTrailer(block)
	return n
}

// Lengths is one span's chunk lengths in terms, indexed by a chunk's
// offset in the span, 0 for an id with no chunk: a width byte (2 or 4)
// then one little-endian entry of that width per offset, up to the
// highest offset set. Fixed widths let a query read the length of any
// posting's chunk in place; two bytes hold every chunk but the longest.
type Lengths []byte

// At is the length at offset off, 0 when off is past the end or the
// array is damaged (Check reports damage; a query must not fail on it).
func (l Lengths) At(off uint64) uint32 {
	if len(l) == 0 {
		return 0
	}
	w := uint64(l[0])
	i := 1 + off*w
	if w != 2 && w != 4 || i+w > uint64(len(l)) {
		return 0
	}
	if w == 2 {
		return uint32(binary.LittleEndian.Uint16(l[i:]))
	}
	return binary.LittleEndian.Uint32(l[i:])
}

// Len is how many offsets the array covers.
func (l Lengths) Len() int {
	if len(l) == 0 || l[0] != 2 && l[0] != 4 {
		return 0
	}
	return (len(l) - 1) / int(l[0])
}

// Valid reports whether l is a well-formed array.
func (l Lengths) Valid() bool {
	return len(l) > 0 && (l[0] == 2 || l[0] == 4) && (len(l)-1)%int(l[0]) == 0 && l.Len() <= BlockSpan
}

// SetLengths returns l with the entries of set (offset → length) written,
// as a new array; trailing zero entries are cut, so an array whose chunks
// are all gone is empty (nil).
func SetLengths(l Lengths, set map[uint64]uint32) Lengths {
	n, wide := l.Len(), len(l) > 0 && l[0] == 4
	for off, v := range set {
		if v != 0 && int(off) >= n {
			n = int(off) + 1
		}
		wide = wide || v > 0xffff
	}
	get := func(off uint64) uint32 {
		if v, ok := set[off]; ok {
			return v
		}
		return l.At(off)
	}
	for n > 0 && get(uint64(n-1)) == 0 {
		n--
	}
	if n == 0 {
		return nil
	}
	w := 2
	if wide {
		w = 4
	}
	out := make(Lengths, 1, 1+n*w)
	out[0] = byte(w)
	for off := range uint64(n) {
		if w == 2 {
			out = binary.LittleEndian.AppendUint16(out, uint16(get(off)))
		} else {
			out = binary.LittleEndian.AppendUint32(out, get(off))
		}
	}
	return out
}

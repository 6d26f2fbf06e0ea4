package rank

import (
	"encoding/binary"
	"errors"
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

// A block is a run of one term's postings, sorted by chunk id: uvarints
// (id delta, frequency, chunk length) followed by the last id as 8 bytes
// big-endian, so appending needs no decoding. The store keeps one block per
// term per range of chunk ids (store/postings.go).
const trailerLen = 8

// ErrDamagedBlock is a block that does not decode.
var ErrDamagedBlock = errors.New("posting block is damaged; run `memctl reindex`")

// LastID is the highest chunk id in block, 0 for an empty one.
func LastID(block []byte) uint64 {
	if len(block) < trailerLen {
		return 0
	}
	return binary.BigEndian.Uint64(block[len(block)-trailerLen:])
}

// AppendBlock returns old's postings followed by list (ids above prev,
// old's last id) as a new block; old is not modified.
func AppendBlock(old []byte, list []Posting, prev uint64) []byte {
	body := old
	if len(body) >= trailerLen {
		body = body[:len(body)-trailerLen]
	}
	buf := make([]byte, len(body), len(body)+len(list)*4+trailerLen)
	copy(buf, body)
	for _, p := range list {
		buf = binary.AppendUvarint(buf, p.Chunk-prev)
		buf = binary.AppendUvarint(buf, uint64(p.Freq))
		buf = binary.AppendUvarint(buf, uint64(p.Length))
		prev = p.Chunk
	}
	return binary.BigEndian.AppendUint64(buf, prev)
}

// DecodeBlock appends block's postings to dst.
func DecodeBlock(block []byte, dst []Posting) ([]Posting, error) {
	if len(block) < trailerLen {
		return dst, ErrDamagedBlock
	}
	v := block[:len(block)-trailerLen]
	var prev uint64
	for len(v) > 0 {
		d, n1 := binary.Uvarint(v)
		if n1 <= 0 {
			return dst, ErrDamagedBlock
		}
		f, n2 := binary.Uvarint(v[n1:])
		if n2 <= 0 {
			return dst, ErrDamagedBlock
		}
		l, n3 := binary.Uvarint(v[n1+n2:])
		if n3 <= 0 {
			return dst, ErrDamagedBlock
		}
		v = v[n1+n2+n3:]
		prev += d
		dst = append(dst, Posting{Chunk: prev, Freq: uint32(f), Length: uint32(l)})
	}
	return dst, nil
}

// BlockLen is how many postings block holds, counted without decoding
// them: each posting is three uvarints, and a uvarint's last byte alone
// has the high bit clear.
func BlockLen(block []byte) int {
	if len(block) < trailerLen {
		return 0
	}
	n := 0
	for _, b := range block[:len(block)-trailerLen] {
		if b < 0x80 {
			n++
		}
	}
	return n / 3
}

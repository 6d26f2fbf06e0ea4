package vector

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/memd-dev/memd/store"
)

// ErrDimension means a vector's length is not the index's dimension: it was
// made by another embedder than the index's vectors.
var ErrDimension = errors.New("vector: dimension does not match the index")

// Index holds the vectors of one embedder in memory and finds the chunks
// nearest a query by cosine similarity. It is safe for concurrent use: any
// number of Search calls run beside each other, and Add and Remove wait for
// the searches in progress.
//
// The vectors are kept flat: one int8 arena, one arena of 1-bit sign codes
// and a parallel slice of chunk ids, so a scan walks contiguous memory.
type Index struct {
	// Candidates is how many vectors the sign-code stage passes to the
	// exact re-score; zero means DefaultCandidates(n). More candidates
	// raise recall and cost about 0.6 µs each. Set it before first use.
	Candidates int

	dim   int
	words int // uint64 words of sign code per vector

	mu     sync.RWMutex
	ids    []uint64       // slot → chunk
	slot   map[uint64]int // chunk → slot
	data   []int8         // slot*dim … : the int8 components
	codes  []uint64       // slot*words … : bit i set when component i > 0
	invLen []float32      // slot → 1/‖data‖, so a dot product becomes a cosine

	scratch sync.Pool // *searchScratch
}

// New returns an empty index for vectors of dim components.
func New(dim int) *Index {
	if dim <= 0 || dim >= skip {
		panic(fmt.Sprintf("vector.New: dimension %d", dim))
	}
	return &Index{dim: dim, words: (dim + 63) / 64, slot: map[uint64]int{}}
}

// Dim is the number of components of the index's vectors.
func (x *Index) Dim() int { return x.dim }

// Grow makes room for n more vectors, so that loading a known number of
// vectors at start copies no arena.
func (x *Index) Grow(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.ids = grow(x.ids, n)
	x.invLen = grow(x.invLen, n)
	x.data = grow(x.data, n*x.dim)
	x.codes = grow(x.codes, n*x.words)
}

func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]T, len(s), len(s)+n)
	copy(out, s)
	return out
}

// Add stores q as chunk's vector, replacing the one it had. q need not be
// normalized: scores are cosines either way.
func (x *Index) Add(chunk uint64, q store.QuantizedVector) error {
	if len(q.Data) != x.dim {
		return fmt.Errorf("add vector of chunk %d: %d components, index has %d: %w", chunk, len(q.Data), x.dim, ErrDimension)
	}
	var sq int64
	for _, c := range q.Data {
		sq += int64(c) * int64(c)
	}
	var inv float32
	if sq > 0 {
		inv = float32(1 / math.Sqrt(float64(sq)))
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slot[chunk]
	if !ok {
		s = len(x.ids)
		x.slot[chunk] = s
		x.ids = append(x.ids, chunk)
		x.invLen = append(x.invLen, 0)
		x.data = append(x.data, q.Data...)
		x.codes = slices.Grow(x.codes, x.words)[:len(x.codes)+x.words] // signCode clears it
	}
	copy(x.data[s*x.dim:(s+1)*x.dim], q.Data)
	signCode(x.codes[s*x.words:(s+1)*x.words], q.Data)
	x.invLen[s] = inv
	return nil
}

// AddFloat quantizes v as the store does and adds it.
func (x *Index) AddFloat(chunk uint64, v []float32) error {
	return x.Add(chunk, store.Quantize(v))
}

// Remove drops chunk's vector; removing an absent chunk does nothing. The
// last vector moves into the freed slot, so the arenas stay dense.
func (x *Index) Remove(chunk uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.slot[chunk]
	if !ok {
		return
	}
	delete(x.slot, chunk)
	last := len(x.ids) - 1
	if s != last {
		moved := x.ids[last]
		x.ids[s] = moved
		x.slot[moved] = s
		x.invLen[s] = x.invLen[last]
		copy(x.data[s*x.dim:(s+1)*x.dim], x.data[last*x.dim:])
		copy(x.codes[s*x.words:(s+1)*x.words], x.codes[last*x.words:])
	}
	x.ids = x.ids[:last]
	x.invLen = x.invLen[:last]
	x.data = x.data[:last*x.dim]
	x.codes = x.codes[:last*x.words]
}

// Len is the number of vectors held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Bytes estimates the memory the index holds, arenas' capacity included.
func (x *Index) Bytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	const mapEntry = 24 // key, value and the Swiss table's control bytes and slack
	return int64(cap(x.ids))*8 + int64(cap(x.invLen))*4 + int64(cap(x.data)) +
		int64(cap(x.codes))*8 + int64(len(x.slot))*mapEntry
}

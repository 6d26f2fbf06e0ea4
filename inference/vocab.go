package inference

import (
	"sync"
	"sync/atomic"

	"github.com/memd-dev/memd/inference/llama"
)

// modelVocab is a llama.cpp model's vocabulary with a cache in Go memory:
// a token's piece and whether it ends generation are asked of llama.cpp
// the first time the token is looked up, and read from the cache after,
// so the scheduler's per-token work (IsEOG and Piece of every sampled
// token) stays in Go once warm. Filling the cache up front would cost two
// C calls per token: 0.2–1.5 s at load for Gemma's 262k tokens. It holds
// 4 bytes per vocabulary token, and the pieces of the tokens seen.
type modelVocab struct {
	m *llama.Model
	// tokens[t] is 0 until t is filled, then its entry number (from 1)
	// shifted left once, with bit 0 set when t ends generation.
	tokens []atomic.Uint32

	// pieces holds entry e's piece at pieces[e/pieceChunk][e%pieceChunk];
	// a chunk is allocated when its first entry is filled.
	pieces []atomic.Pointer[[pieceChunk]string]

	mu   sync.Mutex // serializes fills
	used uint32     // entries filled
}

// pieceChunk is how many pieces one allocation of the cache holds.
const pieceChunk = 1024

// ModelVocab returns m's vocabulary as a Scheduler needs it, with each
// token's piece (as Model.TokenPiece gives it) and end-of-generation flag
// cached in Go after its first use; share it among the schedulers of one
// model. It is safe for concurrent use while m is open.
func ModelVocab(m *llama.Model) Vocab { return newModelVocab(m) }

func newModelVocab(m *llama.Model) *modelVocab {
	n := m.NVocab()
	return &modelVocab{
		m:      m,
		tokens: make([]atomic.Uint32, n),
		pieces: make([]atomic.Pointer[[pieceChunk]string], (n+pieceChunk-1)/pieceChunk),
	}
}

func (v *modelVocab) NVocab() int { return len(v.tokens) }

func (v *modelVocab) Piece(tok int32) string {
	if tok < 0 || int(tok) >= len(v.tokens) {
		return ""
	}
	e := v.entry(tok) >> 1
	return v.pieces[e/pieceChunk].Load()[e%pieceChunk]
}

func (v *modelVocab) IsEOG(tok int32) bool {
	return tok >= 0 && int(tok) < len(v.tokens) && v.entry(tok)&1 != 0
}

// entry returns tok's state: its entry number (from 0) shifted left once,
// bit 0 its end-of-generation flag.
func (v *modelVocab) entry(tok int32) uint32 {
	s := v.tokens[tok].Load()
	if s == 0 {
		s = v.fill(tok)
	}
	return s - 2
}

// fill asks llama.cpp about tok and caches the answer.
func (v *modelVocab) fill(tok int32) uint32 {
	piece, eog := v.m.TokenPiece(tok), v.m.IsEOG(tok)
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.tokens[tok].Load(); s != 0 {
		return s // filled meanwhile by another scheduler
	}
	e := v.used
	v.used++
	chunk := v.pieces[e/pieceChunk].Load()
	if chunk == nil {
		chunk = new([pieceChunk]string)
		v.pieces[e/pieceChunk].Store(chunk)
	}
	chunk[e%pieceChunk] = piece
	s := (e + 1) << 1
	if eog {
		s |= 1
	}
	v.tokens[tok].Store(s)
	return s
}

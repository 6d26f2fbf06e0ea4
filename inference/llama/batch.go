package llama

import "unsafe"

// Batch is a llama_batch allocated in C memory: up to its capacity of
// tokens, each with a position, up to nSeqMax sequence ids and an output
// flag. It belongs to the library that made it; not safe for concurrent use.
type Batch struct {
	lib      *Library
	c        cBatch
	capacity int
	nSeqMax  int
}

// NewBatch allocates a batch for nTokens tokens with up to nSeqMax sequence
// ids each, on the one loaded Library (Open must have succeeded).
func NewBatch(nTokens, nSeqMax int) *Batch {
	loadedMu.Lock()
	l := loaded
	loadedMu.Unlock()
	if l == nil {
		panic("llama: NewBatch before Open")
	}
	return l.NewBatch(nTokens, nSeqMax)
}

// NewBatch allocates a batch (see the package-level NewBatch).
func (l *Library) NewBatch(nTokens, nSeqMax int) *Batch {
	nTokens, nSeqMax = max(1, nTokens), max(1, nSeqMax)
	return &Batch{lib: l, c: l.fn.batchInit(int32(nTokens), 0, int32(nSeqMax)), capacity: nTokens, nSeqMax: nSeqMax}
}

// Add appends a token at pos in sequence seq; logits asks for its output
// (logits or embedding). It panics when the batch is full.
func (b *Batch) Add(tok int32, pos int32, seq int32, logits bool) {
	b.AddSeqs(tok, pos, []int32{seq}, logits)
}

// AddSeqs appends a token that belongs to several sequences at once (a
// shared prefix).
func (b *Batch) AddSeqs(tok int32, pos int32, seqs []int32, logits bool) {
	i := int(b.c.NTokens)
	if i >= b.capacity {
		panic("llama: batch is full")
	}
	if len(seqs) == 0 || len(seqs) > b.nSeqMax {
		panic("llama: batch token needs 1..nSeqMax sequence ids")
	}
	at32 := func(p unsafe.Pointer) []int32 { return unsafe.Slice((*int32)(p), b.capacity) }
	at32(b.c.Token)[i] = tok
	at32(b.c.Pos)[i] = pos
	at32(b.c.NSeqID)[i] = int32(len(seqs))
	ids := unsafe.Slice((**int32)(b.c.SeqID), b.capacity)[i]
	copy(unsafe.Slice(ids, b.nSeqMax), seqs)
	var l int8
	if logits {
		l = 1
	}
	unsafe.Slice((*int8)(b.c.Logits), b.capacity)[i] = l
	b.c.NTokens++
}

// Len is the number of tokens in the batch.
func (b *Batch) Len() int { return int(b.c.NTokens) }

// Clear empties the batch for reuse.
func (b *Batch) Clear() { b.c.NTokens = 0 }

// Free releases the batch's C memory. Freeing twice is a no-op.
func (b *Batch) Free() {
	if b.c.Token == nil && b.c.Embd == nil {
		return
	}
	b.lib.fn.batchFree(b.c)
	b.c = cBatch{}
	b.capacity = 0
}

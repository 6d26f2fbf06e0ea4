package llama

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// llama_pooling_type values for ContextParams.Pooling and Model.PoolingType.
const (
	PoolingUnspecified = -1
	PoolingNone        = 0
	PoolingMean        = 1
	PoolingCLS         = 2
	PoolingLast        = 3
	PoolingRank        = 4
)

// llama_flash_attn_type values for ContextParams.FlashAttn.
const (
	FlashAttnAuto     = -1
	FlashAttnDisabled = 0
	FlashAttnEnabled  = 1
)

// ContextParams configures a context. Zero fields take llama.cpp's defaults
// where noted; the values llama.cpp really used are on the Context.
type ContextParams struct {
	// NCtx is the KV cache size in tokens over all sequences; 0 = the
	// model's. llama.cpp rounds it up to 256, and without KVUnified it
	// rounds each sequence's share (NCtx/NSeqMax) up to 256 (256 tokens for
	// 4 sequences become 1024); Context.NCtx reports the result.
	NCtx     int
	NBatch   int // most tokens per Decode; 0 = 2048
	NUbatch  int // physical batch; 0 = 512
	NSeqMax  int // sequence ids 0..NSeqMax-1; 0 = 1
	NThreads int // threads for decode and batch; 0 = llama.cpp's default
	// Embeddings makes the context output embeddings instead of logits.
	Embeddings bool
	// Pooling is a llama_pooling_type: PoolingUnspecified (the model's),
	// PoolingNone, PoolingMean, ... Note the zero value is PoolingNone.
	Pooling int
	// KVUnified shares one KV buffer across sequences. It must be set for
	// embedding contexts that put several sequences in one batch (see
	// shared/LLAMA.md: mean pooling is wrong otherwise).
	KVUnified bool
	// FlashAttn is FlashAttnAuto, FlashAttnDisabled (the zero value) or
	// FlashAttnEnabled.
	FlashAttn int
	// NOutputsMaxPerSeq is llama.cpp's n_outputs_max_per_seq (its default
	// is 1; it did not limit logits outputs in our tests); 0 = NBatch.
	NOutputsMaxPerSeq int
}

// Context is a KV cache and compute state over a model, with its own LoRA
// set. A Context is not safe for concurrent use, except SetAbort's function,
// which runs on llama.cpp's thread. Close it before the model.
type Context struct {
	model  *Model
	ptr    uintptr
	mem    uintptr
	nVocab int
	nEmbd  int
	// nEmbdSeq is a pooled output's length: nEmbd, or 1 under rank pooling.
	nEmbdSeq int
	nBatch   int
	abort    uintptr // handle in abortFuncs, 0 when none
}

// NewContext creates a context on the model.
func (m *Model) NewContext(p ContextParams) (*Context, error) {
	if m.ptr == 0 {
		return nil, ErrClosed
	}
	f := &m.lib.fn
	cp := f.contextDefaultParams()
	setU := func(dst *uint32, v int) {
		if v > 0 {
			*dst = uint32(v)
		}
	}
	setU(&cp.NCtx, p.NCtx)
	setU(&cp.NBatch, p.NBatch)
	setU(&cp.NUbatch, p.NUbatch)
	setU(&cp.NSeqMax, p.NSeqMax)
	cp.NOutputsMaxPerSeq = cp.NBatch
	setU(&cp.NOutputsMaxPerSeq, p.NOutputsMaxPerSeq)
	if p.NThreads > 0 {
		cp.NThreads, cp.NThreadsBatch = int32(p.NThreads), int32(p.NThreads)
	}
	cp.Embeddings = p.Embeddings
	if p.Embeddings {
		// Without embeddings pooling is unused; passing ours would only make
		// llama.cpp warn that it differs from the model's.
		cp.PoolingType = int32(p.Pooling)
	}
	cp.KVUnified = p.KVUnified
	cp.FlashAttnType = int32(p.FlashAttn)
	ptr := f.initFromModel(m.ptr, cp)
	if ptr == 0 {
		return nil, fmt.Errorf("%w: %s", ErrContext, orUnknown(lastError()))
	}
	nEmbd := m.NEmbdOut()
	if nEmbd <= 0 {
		nEmbd = m.NEmbd()
	}
	ctx := &Context{model: m, ptr: ptr, mem: f.getMemory(ptr), nVocab: m.NVocab(), nEmbd: nEmbd, nEmbdSeq: nEmbd, nBatch: int(f.nBatch(ptr))}
	if ctx.PoolingType() == PoolingRank {
		ctx.nEmbdSeq = 1
	}
	return ctx, nil
}

// Close frees the context. Closing twice is a no-op.
func (c *Context) Close() {
	if c.ptr == 0 {
		return
	}
	c.SetAbort(nil)
	c.model.lib.fn.free(c.ptr)
	c.ptr = 0
}

// Model is the model the context runs.
func (c *Context) Model() *Model { return c.model }

// NCtx is the KV cache size llama.cpp allocated (rounded up to 256).
func (c *Context) NCtx() int { return int(c.model.lib.fn.nCtx(c.ptr)) }

// NSeqMax is the number of sequence ids the context accepts.
func (c *Context) NSeqMax() int { return int(c.model.lib.fn.nSeqMax(c.ptr)) }

// NBatch is the most tokens one Decode accepts (llama.cpp caps it at NCtx).
func (c *Context) NBatch() int { return c.nBatch }

// NUbatch is the physical batch size.
func (c *Context) NUbatch() int { return int(c.model.lib.fn.nUbatch(c.ptr)) }

// PoolingType is the pooling the context applies (llama_pooling_type).
func (c *Context) PoolingType() int { return int(c.model.lib.fn.poolingType(c.ptr)) }

// SetAdapters makes adapters (with their scales) the context's LoRA set,
// replacing the previous set for every sequence; an empty set clears it and
// gives back the base model's logits exactly. The KV cache is not cleared:
// entries computed under another set stay as they are.
func (c *Context) SetAdapters(adapters []*Adapter, scales []float32) error {
	if len(adapters) != len(scales) {
		return fmt.Errorf("%w: %d adapters but %d scales", ErrAdapter, len(adapters), len(scales))
	}
	m := c.model
	m.mu.Lock()
	defer m.mu.Unlock()
	ptrs := make([]uintptr, len(adapters))
	for i, a := range adapters {
		if a.model != m {
			return fmt.Errorf("%w: %s was loaded for another model", ErrAdapter, a.path)
		}
		if a.ptr == 0 {
			return fmt.Errorf("%w: %s", ErrClosed, a.path)
		}
		ptrs[i] = a.ptr
	}
	var pa, ps unsafe.Pointer
	if len(ptrs) > 0 {
		pa, ps = unsafe.Pointer(&ptrs[0]), unsafe.Pointer(&scales[0])
	}
	rc := m.lib.fn.setAdaptersLora(c.ptr, pa, uintptr(len(ptrs)), ps)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(scales)
	if rc != 0 {
		return fmt.Errorf("%w: llama_set_adapters_lora returned %d: %s", ErrAdapter, rc, orUnknown(lastError()))
	}
	return nil
}

// Decode runs the batch through the model, appending its tokens to the KV
// cache. Return codes become ErrNoKVSlot (1), ErrAborted (2),
// ErrInvalidBatch (-1) or ErrDecode. An empty batch or one over NBatch
// tokens is ErrInvalidBatch without calling llama.cpp (which would abort
// the process on the latter).
func (c *Context) Decode(b *Batch) error {
	if err := c.checkBatch(b); err != nil {
		return err
	}
	lastError()
	return decodeError("llama_decode", c.model.lib.fn.decode(c.ptr, b.c))
}

func (c *Context) checkBatch(b *Batch) error {
	switch {
	case c.ptr == 0:
		return ErrClosed
	case b.Len() == 0:
		return fmt.Errorf("%w: empty batch", ErrInvalidBatch)
	case b.Len() > c.nBatch:
		return fmt.Errorf("%w: %d tokens, more than the context's n_batch %d", ErrInvalidBatch, b.Len(), c.nBatch)
	}
	return nil
}

func decodeError(fn string, rc int32) error {
	switch rc {
	case 0:
		return nil
	case 1:
		return ErrNoKVSlot
	case 2:
		return ErrAborted
	case -1:
		return fmt.Errorf("%w: %s", ErrInvalidBatch, orUnknown(lastError()))
	}
	return fmt.Errorf("%w: %s returned %d: %s", ErrDecode, fn, rc, orUnknown(lastError()))
}

// Logits returns the logits of batch row i (a row added with logits set;
// negative i counts from the end), or nil for a row without output. The
// slice aliases llama.cpp's memory: it has NVocab entries and is valid only
// until the next Decode or Close.
func (c *Context) Logits(i int) []float32 {
	p := c.model.lib.fn.logitsIth(c.ptr, int32(i))
	if p == nil {
		lastError()
		return nil
	}
	return unsafe.Slice((*float32)(p), c.nVocab)
}

// EmbeddingsSeq returns the pooled embedding of sequence seq (contexts with
// pooling other than none), unnormalized; nil when there is none. Like
// Logits it aliases C memory valid until the next Decode.
func (c *Context) EmbeddingsSeq(seq int32) []float32 {
	p := c.model.lib.fn.embdSeq(c.ptr, seq)
	if p == nil {
		return nil
	}
	return unsafe.Slice((*float32)(p), c.nEmbdSeq)
}

// SeqRemove removes sequence seq's cache entries at positions [p0, p1)
// (p0 < 0: from 0; p1 < 0: to the end; seq < 0: every sequence). Removing a
// whole sequence never fails; a partial removal can (recurrent models).
func (c *Context) SeqRemove(seq int32, p0, p1 int32) bool {
	return c.model.lib.fn.memSeqRm(c.mem, seq, p0, p1)
}

// SeqPosMax is the largest position cached for seq, -1 when it is empty.
func (c *Context) SeqPosMax(seq int32) int32 { return c.model.lib.fn.memPosMax(c.mem, seq) }

// MemoryClear empties the KV cache of every sequence.
func (c *Context) MemoryClear() { c.model.lib.fn.memClear(c.mem, true) }

// abortFuncs maps the handle given to llama.cpp as abort_callback_data to
// the Go function: purego callbacks are a small fixed pool, so there is one
// C callback for the process and it dispatches on the handle.
var abortFuncs struct {
	once sync.Once
	cb   uintptr
	mu   sync.RWMutex
	next uintptr
	fns  map[uintptr]func() bool
}

func abortDispatch(handle uintptr) bool {
	abortFuncs.mu.RLock()
	fn := abortFuncs.fns[handle]
	abortFuncs.mu.RUnlock()
	return fn != nil && fn()
}

// SetAbort installs fn, which llama.cpp calls during Decode (on its compute
// thread); returning true stops the decode with ErrAborted. nil removes it.
// fn must be quick and safe to call from another thread.
func (c *Context) SetAbort(fn func() bool) {
	abortFuncs.once.Do(func() {
		abortFuncs.fns = map[uintptr]func() bool{}
		abortFuncs.cb = purego.NewCallback(abortDispatch)
	})
	abortFuncs.mu.Lock()
	if c.abort != 0 {
		delete(abortFuncs.fns, c.abort)
		c.abort = 0
	}
	if fn != nil {
		abortFuncs.next++
		c.abort = abortFuncs.next
		abortFuncs.fns[c.abort] = fn
	}
	abortFuncs.mu.Unlock()
	if c.abort == 0 {
		c.model.lib.fn.setAbortCallback(c.ptr, 0, 0)
		return
	}
	c.model.lib.fn.setAbortCallback(c.ptr, abortFuncs.cb, c.abort)
}

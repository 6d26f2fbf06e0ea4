package inference

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/memd-dev/memd/inference/llama"
)

// EmbedderConfig says which embedding model to load and how to batch. The
// zero value of every field but Path is useful.
type EmbedderConfig struct {
	// Path is the model's GGUF file.
	Path string
	// Threads is the CPU threads per decode; default the number of CPUs.
	Threads int
	// BatchSize is the most tokens per decode, over all inputs in it;
	// default 2048.
	BatchSize int
	// MaxTokens is the most tokens of one input; longer inputs are cut
	// and the cut is reported. Default and upper bound: the smaller of
	// BatchSize and the model's training context.
	MaxTokens int
	// Sequences is the most inputs per decode; default 32.
	Sequences int
	// GPULayers is passed to llama.cpp; 0 is the library's default.
	GPULayers int
	// Logger receives problems that fail no request; nil discards them.
	Logger *slog.Logger
}

// Embedding is one input's vector.
type Embedding struct {
	// Vector has Dim() values and unit L2 norm.
	Vector []float32
	// Tokens is how many tokens were embedded.
	Tokens int
	// Truncated is how many tokens were cut from the end of the input.
	Truncated int
}

// Embedder turns texts into vectors with one embedding model. Inputs of
// concurrent calls are packed together, several sequences per decode;
// Interactive inputs go before Background ones. Vectors use the model's
// own pooling, or the mean of the token vectors when it has none, and are
// L2-normalized. All methods are safe for concurrent use; one goroutine,
// stopped by Close, owns the llama.cpp context.
type Embedder struct {
	model  embedModel
	info   ModelInfo
	cfg    EmbedderConfig
	dim    int
	output pooledOutput
	suffix []int32 // tokens the tokenizer adds after a text, kept when cutting
	log    *slog.Logger

	mu      sync.Mutex
	pending []*embedItem
	closed  bool
	order   uint64
	wake    chan struct{}
	done    chan struct{}

	// closeMu keeps the model alive while callers tokenize.
	closeMu sync.RWMutex
}

// embedModel is what the Embedder's loop needs from a model: tokenize,
// and pool the vectors of several sequences in one decode. The llama.cpp
// implementation is llamaEmbedModel; tests use a fake.
type embedModel interface {
	tokenize(text string) ([]int32, error)
	// embed returns one pooled, unnormalized vector per sequence; the
	// vectors may alias memory that the next call reuses.
	embed(seqs [][]int32) ([][]float32, error)
	close()
}

// pooledOutput is what the loop makes of a pooled vector.
type pooledOutput int

const (
	unitVectors pooledOutput = iota // L2-normalized: embeddings
	rawVectors                      // as the model pooled them: rank scores
)

// embedItem is one input waiting for, or in, a decode.
type embedItem struct {
	call  *embedCall
	index int
	toks  []int32
	order uint64
}

// embedCall is one Embed call; the loop fills out and closes done.
type embedCall struct {
	ctx  context.Context
	prio Priority
	out  []Embedding
	left int
	err  error
	done chan struct{}
}

// LoadEmbedder checks and loads an embedding model and starts its loop.
func LoadEmbedder(lib *llama.Library, cfg EmbedderConfig) (*Embedder, error) {
	m, info, err := loadModel(lib, cfg.Path, cfg.GPULayers)
	if err != nil {
		return nil, fmt.Errorf("load embedder: %w", err)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 2048
	}
	if cfg.Sequences <= 0 {
		cfg.Sequences = 32
	}
	cfg.MaxTokens = tokenLimit(m, cfg.BatchSize, cfg.MaxTokens)
	cfg.Threads = defaultThreads(cfg.Threads)
	pooling := m.PoolingType()
	if pooling == llama.PoolingUnspecified || pooling == llama.PoolingNone {
		pooling = llama.PoolingMean
	}
	c, err := newPoolingContext(m, cfg.BatchSize, cfg.Sequences, cfg.Threads, pooling, llama.FlashAttnAuto)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("load embedder: context: %w", err)
	}
	dim := m.NEmbdOut()
	if dim <= 0 {
		dim = m.NEmbd()
	}
	em := &llamaEmbedModel{m: m, ctx: c, batch: llama.NewBatch(cfg.BatchSize, 1)}
	return newEmbedder(em, info, cfg, dim, unitVectors), nil
}

// tokenLimit is the most tokens one input may have: max, capped by the
// batch (a sequence must fit one decode to be pooled) and the model's
// training context; max <= 0 means that cap.
func tokenLimit(m *llama.Model, batch, max int) int {
	limit := batch
	if n := m.NCtxTrain(); n > 0 {
		limit = min(limit, n)
	}
	if max <= 0 || max > limit {
		return limit
	}
	return max
}

// newPoolingContext opens a context that pools each sequence of a batch
// into one output, for embeddings and reranking.
func newPoolingContext(m *llama.Model, batch, seqs, threads, pooling, flash int) (*llama.Context, error) {
	return m.NewContext(llama.ContextParams{
		NCtx:       batch,
		NBatch:     batch,
		NUbatch:    batch, // a sequence must sit in one ubatch to be pooled
		NSeqMax:    seqs,
		NThreads:   threads,
		Embeddings: true,
		Pooling:    pooling,
		// Split streams cut mixed-length batches into equal parts and pool
		// the longer sequences wrong (see LLAMA.md).
		KVUnified: true,
		FlashAttn: flash,
	})
}

// newEmbedder starts the loop over a loaded model; cfg has its defaults.
// Each result's Vector is dim values, made from the pooled vector as out
// says.
func newEmbedder(m embedModel, info ModelInfo, cfg EmbedderConfig, dim int, out pooledOutput) *Embedder {
	e := &Embedder{
		model:  m,
		info:   info,
		cfg:    cfg,
		dim:    dim,
		output: out,
		log:    cfg.Logger,
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	// A tokenizer that closes every text with a special token (BERT's
	// [SEP]) shows it on the empty text; truncation keeps it.
	if empty, err := m.tokenize(""); err == nil && len(empty) > 1 {
		e.suffix = empty[len(empty)-1:]
	}
	go e.run()
	return e
}

// Tokenize returns the tokens Embed would see for text, before any cut.
func (e *Embedder) Tokenize(text string) ([]int32, error) {
	e.closeMu.RLock()
	defer e.closeMu.RUnlock()
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	toks, err := e.model.tokenize(text)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	return toks, nil
}

// Dim is the length of every vector.
func (e *Embedder) Dim() int { return e.dim }

// Info describes the loaded model.
func (e *Embedder) Info() ModelInfo { return e.info }

// Config returns the configuration after defaults.
func (e *Embedder) Config() EmbedderConfig { return e.cfg }

// Embed returns one vector per text, in order. It blocks until all are
// done, ctx ends (ctx.Err() is returned and no vectors) or the embedder
// closes (ErrClosed).
func (e *Embedder) Embed(ctx context.Context, texts []string, prio Priority) ([]Embedding, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	seqs, err := e.tokenize(texts)
	if err != nil {
		return nil, err
	}
	return e.embedTokens(ctx, seqs, prio)
}

// embedTokens is Embed for inputs already tokenized; the loop cuts each
// to MaxTokens and reports the cut.
func (e *Embedder) embedTokens(ctx context.Context, seqs [][]int32, prio Priority) ([]Embedding, error) {
	call := &embedCall{ctx: ctx, prio: prio, out: make([]Embedding, len(seqs)), left: len(seqs), done: make(chan struct{})}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	for i, toks := range seqs {
		if len(toks) == 0 {
			e.mu.Unlock()
			return nil, fmt.Errorf("embed: input %d: %w", i, ErrEmptyPrompt)
		}
	}
	for i, toks := range seqs {
		e.order++
		e.pending = append(e.pending, &embedItem{call: call, index: i, toks: toks, order: e.order})
	}
	e.mu.Unlock()
	return e.await(ctx, call)
}

// await wakes the loop for call's queued items and waits for their results
// or for ctx to end.
func (e *Embedder) await(ctx context.Context, call *embedCall) ([]Embedding, error) {
	e.signal()
	select {
	case <-call.done:
		if call.err != nil {
			return nil, call.err
		}
		return call.out, nil
	case <-ctx.Done():
		e.signal() // let the loop drop what is left of this call
		return nil, ctx.Err()
	}
}

func (e *Embedder) tokenize(texts []string) ([][]int32, error) {
	e.closeMu.RLock()
	defer e.closeMu.RUnlock()
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		toks, err := e.model.tokenize(t)
		if err != nil {
			return nil, fmt.Errorf("embed: tokenize input %d: %w", i, err)
		}
		seqs[i] = toks
	}
	return seqs, nil
}

// truncate cuts toks to MaxTokens, keeping a closing special token (like
// BERT's [SEP]) the model's tokenizer puts at the end.
func (e *Embedder) truncate(toks []int32) ([]int32, int) {
	n := e.cfg.MaxTokens
	if len(toks) <= n {
		return toks, 0
	}
	cut := len(toks) - n
	if len(e.suffix) == 1 && toks[len(toks)-1] == e.suffix[0] && n > 1 {
		return append(slices.Clone(toks[:n-1]), e.suffix[0]), cut
	}
	return toks[:n], cut
}

func (e *Embedder) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Close stops the loop, failing waiting calls with ErrClosed, and frees
// the context and the model. It is idempotent.
func (e *Embedder) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.signal()
	<-e.done
	e.model.close()
	return nil
}

func (e *Embedder) run() {
	defer close(e.done)
	for {
		e.mu.Lock()
		if e.closed {
			pending := e.pending
			e.pending = nil
			e.mu.Unlock()
			for _, it := range pending {
				it.call.fail(ErrClosed)
			}
			return
		}
		picked := e.pick()
		e.mu.Unlock()
		if len(picked) == 0 {
			<-e.wake
			continue
		}
		e.decode(picked)
	}
}

// pick takes the next inputs for one decode, best first, as many as fit.
// Inputs of finished or cancelled calls are dropped. Called with mu held.
func (e *Embedder) pick() []*embedItem {
	live := e.pending[:0]
	for _, it := range e.pending {
		if it.call.err == nil && it.call.ctx.Err() == nil {
			live = append(live, it)
		}
	}
	clear(e.pending[len(live):])
	e.pending = live
	slices.SortStableFunc(e.pending, func(a, b *embedItem) int {
		if a.call.prio != b.call.prio {
			return int(b.call.prio) - int(a.call.prio)
		}
		return int(a.order - b.order)
	})
	var picked []*embedItem
	tokens := 0
	rest := e.pending[:0]
	for _, it := range e.pending {
		n := min(len(it.toks), e.cfg.MaxTokens)
		if len(picked) < e.cfg.Sequences && tokens+n <= e.cfg.BatchSize {
			picked = append(picked, it)
			tokens += n
			continue
		}
		rest = append(rest, it)
	}
	clear(e.pending[len(rest):])
	e.pending = rest
	return picked
}

// decode embeds picked inputs in one decode, one sequence each.
func (e *Embedder) decode(picked []*embedItem) {
	start := time.Now()
	seqs := make([][]int32, len(picked))
	cuts := make([]int, len(picked))
	for s, it := range picked {
		seqs[s], cuts[s] = e.truncate(it.toks)
	}
	vecs, err := e.model.embed(seqs)
	if err != nil {
		err = fmt.Errorf("embed: decode %d inputs: %w", len(picked), err)
		for _, it := range picked {
			it.call.fail(err)
		}
		return
	}
	for s, it := range picked {
		if len(vecs[s]) == 0 {
			it.call.fail(fmt.Errorf("embed: no pooled vector for input %d", it.index))
			continue
		}
		it.call.put(it.index, Embedding{Vector: e.vector(vecs[s]), Tokens: len(seqs[s]), Truncated: cuts[s]})
	}
	e.log.Debug("embed step", "inputs", len(picked), "took", time.Since(start))
}

func (c *embedCall) fail(err error) {
	if c.err != nil || c.left == 0 {
		return
	}
	c.err = err
	close(c.done)
}

func (c *embedCall) put(i int, v Embedding) {
	if c.err != nil {
		return
	}
	c.out[i] = v
	if c.left--; c.left == 0 {
		close(c.done)
	}
}

// vector is the result made of a pooled vector v, in Go memory (v itself
// may be C memory).
func (e *Embedder) vector(v []float32) []float32 {
	if e.output == rawVectors {
		return slices.Clone(v)
	}
	return normalize(v)
}

// normalize returns a unit-length copy of v (v itself may be C memory).
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// llamaEmbedModel is an embedding model (or a reranker, which tokenizes its
// pairs itself and cuts them to the loop's limit) and its pooling context
// in llama.cpp.
type llamaEmbedModel struct {
	m     *llama.Model
	ctx   *llama.Context
	batch *llama.Batch
}

func (l *llamaEmbedModel) tokenize(text string) ([]int32, error) {
	return l.m.Tokenize(text, true, false)
}

func (l *llamaEmbedModel) embed(seqs [][]int32) ([][]float32, error) {
	l.ctx.MemoryClear()
	l.batch.Clear()
	for s, toks := range seqs {
		for p, t := range toks {
			l.batch.Add(t, int32(p), int32(s), true)
		}
	}
	if err := l.ctx.Decode(l.batch); err != nil {
		return nil, err
	}
	out := make([][]float32, len(seqs))
	for s := range seqs {
		out[s] = l.ctx.EmbeddingsSeq(int32(s))
	}
	return out, nil
}

func (l *llamaEmbedModel) close() {
	l.batch.Free()
	l.ctx.Close()
	l.m.Close()
}

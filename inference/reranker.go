package inference

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/memd-dev/memd/inference/llama"
)

// RerankerConfig says which cross-encoder to load. The zero value of every
// field but Path is useful.
type RerankerConfig struct {
	// Path is the model's GGUF file; its pooling type must be rank.
	Path string
	// Threads is the CPU threads per decode; default the number of CPUs.
	Threads int
	// MaxTokens is the most tokens of one query–document pair; a longer
	// pair loses the end of its document (then of its query). Default and
	// upper bound: the smaller of 2048 and the model's training context.
	MaxTokens int
	// GPULayers is passed to llama.cpp; 0 is the library's default.
	GPULayers int
	// Logger receives problems that fail no request; nil discards them.
	Logger *slog.Logger
}

// Reranker scores query–document pairs with a cross-encoder: a model whose
// pooling type is rank (llama.cpp's classification head over the pooled
// token). It drives the same batching loop as Embedder (pairs of
// concurrent calls share decodes, one sequence each, Interactive first),
// over a context with rank pooling, with the loop's normalization off.
// Safe for concurrent use.
type Reranker struct {
	loop   *Embedder // the embedding loop; each result's Vector is [score]
	model  *llama.Model
	format pairFormat
	max    int
}

// rerankBatch is the most tokens per decode, over all pairs in it.
const rerankBatch = 2048

// LoadReranker checks and loads a rank-pooling model and starts its loop.
// A model of another pooling type is refused: it is an embedder.
func LoadReranker(lib *llama.Library, cfg RerankerConfig) (*Reranker, error) {
	m, info, err := loadModel(lib, cfg.Path, cfg.GPULayers)
	if err != nil {
		return nil, fmt.Errorf("load reranker: %w", err)
	}
	if p := m.PoolingType(); p != llama.PoolingRank {
		m.Close()
		return nil, fmt.Errorf("load reranker: %s is not a reranker model: its pooling type is %s; use it as the embedder", cfg.Path, poolingName(p))
	}
	cfg.MaxTokens = tokenLimit(m, rerankBatch, cfg.MaxTokens)
	cfg.Threads = defaultThreads(cfg.Threads)
	const seqs = 32
	// Flash attention rounds through f16 in a way that depends on what
	// else shares the decode (scores moved by up to 4e-4 between batched
	// and alone on the test model); without it they agree to 1e-6, so a
	// score does not depend on its neighbours.
	c, err := newPoolingContext(m, rerankBatch, seqs, cfg.Threads, llama.PoolingRank, llama.FlashAttnDisabled)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("load reranker: context: %w", err)
	}
	if p := c.PoolingType(); p != llama.PoolingRank {
		c.Close()
		m.Close()
		return nil, fmt.Errorf("load reranker: %s: the context pools by %s, not rank", cfg.Path, poolingName(p))
	}
	em := &llamaEmbedModel{m: m, ctx: c, batch: llama.NewBatch(rerankBatch, 1)}
	loop := newEmbedder(em, info, EmbedderConfig{Path: cfg.Path, Threads: cfg.Threads, BatchSize: rerankBatch,
		MaxTokens: cfg.MaxTokens, Sequences: seqs, GPULayers: cfg.GPULayers, Logger: cfg.Logger}, 1, rawVectors)
	return &Reranker{loop: loop, model: m, format: newPairFormat(m), max: cfg.MaxTokens}, nil
}

// Info describes the loaded model.
func (r *Reranker) Info() ModelInfo { return r.loop.Info() }

// Close stops the loop, failing waiting calls with ErrClosed, and frees the
// model. It is idempotent.
func (r *Reranker) Close() error { return r.loop.Close() }

// Score returns one relevance score per document, in order, higher better:
// the model's raw output for the pair (not normalized; comparable within
// one model). It blocks until all are done, ctx ends or the reranker
// closes (ErrClosed).
func (r *Reranker) Score(ctx context.Context, query string, docs []string) ([]float32, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	seqs := make([][]int32, len(docs))
	r.loop.closeMu.RLock()
	r.loop.mu.Lock()
	closed := r.loop.closed
	r.loop.mu.Unlock()
	if closed {
		r.loop.closeMu.RUnlock()
		return nil, ErrClosed
	}
	var err error
	for i, d := range docs {
		if seqs[i], err = r.pair(query, d); err != nil {
			err = fmt.Errorf("rerank: document %d: %w", i, err)
			break
		}
	}
	r.loop.closeMu.RUnlock()
	if err != nil {
		return nil, err
	}
	out, err := r.loop.embedTokens(ctx, seqs, Interactive)
	if err != nil {
		return nil, err
	}
	scores := make([]float32, len(out))
	for i, e := range out {
		scores[i] = e.Vector[0]
	}
	return scores, nil
}

// pair tokenizes query and doc as llama.cpp's server does for rerank, cut
// to MaxTokens. Called with closeMu read-held.
func (r *Reranker) pair(query, doc string) ([]int32, error) {
	f := &r.format
	tok := func(s string, special bool) ([]int32, error) { return r.model.Tokenize(s, false, special) }
	if f.template != "" {
		whole := strings.ReplaceAll(strings.ReplaceAll(f.template, "{query}", query), "{document}", doc)
		toks, err := tok(whole, true)
		if err != nil || len(toks) <= r.max {
			return toks, err
		}
		// Too long: the template around the document stays whole.
		before, after, _ := strings.Cut(f.template, "{document}")
		head, err := tok(strings.ReplaceAll(before, "{query}", query), true)
		if err != nil {
			return nil, err
		}
		tail, err := tok(strings.ReplaceAll(after, "{query}", query), true)
		if err != nil {
			return nil, err
		}
		d, err := tok(doc, false)
		if err != nil {
			return nil, err
		}
		return fitPair(nil, head, nil, d, tail, r.max), nil
	}
	q, err := tok(query, false)
	if err != nil {
		return nil, err
	}
	d, err := tok(doc, false)
	if err != nil {
		return nil, err
	}
	return fitPair(f.bos, q, f.mid, d, f.end, r.max), nil
}

// fitPair joins bos+q+mid+d+end, cutting the end of d, then of q, so the
// whole has at most max tokens.
func fitPair(bos, q, mid, d, end []int32, max int) []int32 {
	fixed := len(bos) + len(mid) + len(end)
	if over := fixed + len(q) + len(d) - max; over > 0 {
		cut := min(over, len(d))
		d, over = d[:len(d)-cut], over-cut
		q = q[:len(q)-min(over, len(q))]
	}
	return slices.Concat(bos, q, mid, d, end)
}

// pairFormat is how a query–document pair becomes one sequence: the
// model's rerank template (tokenizer.chat_template.rerank, with {query}
// and {document}) when it has one, else [BOS] query [EOS] [SEP] doc [EOS],
// each special token present as the vocabulary's add_bos / add_eos /
// add_sep say (llama.cpp's format_prompt_rerank).
type pairFormat struct {
	template      string
	bos, mid, end []int32
}

func newPairFormat(m *llama.Model) pairFormat {
	if t, ok := m.Meta("tokenizer.chat_template.rerank"); ok && t != "" {
		return pairFormat{template: t}
	}
	// What the tokenizer adds around a text shows add_bos, add_eos and
	// (for WPM) add_sep as llama.cpp resolved them, defaults included.
	var prefix, suffix []int32
	full, err1 := m.Tokenize("x", true, false)
	plain, err2 := m.Tokenize("x", false, false)
	if err1 == nil && err2 == nil && len(plain) > 0 {
		for i := 0; i+len(plain) <= len(full); i++ {
			if slices.Equal(full[i:i+len(plain)], plain) {
				prefix, suffix = full[:i], full[i+len(plain):]
				break
			}
		}
	}
	eos := m.EOS()
	sep := int32(-1)
	if v, ok := metaInt(m, "tokenizer.ggml.seperator_token_id"); ok {
		sep = int32(v)
	} else {
		for _, t := range suffix {
			if t != eos {
				sep = t
			}
		}
	}
	addEOS := metaBool(m, "tokenizer.ggml.add_eos_token", eos >= 0 && slices.Contains(suffix, eos))
	addSEP := metaBool(m, "tokenizer.ggml.add_sep_token", sep >= 0 && slices.Contains(suffix, sep))
	end := eos
	if end < 0 {
		end = sep
	}
	f := pairFormat{bos: slices.Clone(prefix)}
	if addEOS && end >= 0 {
		f.mid = append(f.mid, end)
		f.end = append(f.end, end)
	}
	if addSEP && sep >= 0 {
		f.mid = append(f.mid, sep)
	}
	return f
}

func metaInt(m *llama.Model, key string) (int, bool) {
	s, ok := m.Meta(key)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	return v, err == nil
}

func metaBool(m *llama.Model, key string, def bool) bool {
	s, ok := m.Meta(key)
	if !ok {
		return def
	}
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return v
}

func poolingName(p int) string {
	switch p {
	case llama.PoolingNone:
		return "none"
	case llama.PoolingMean:
		return "mean"
	case llama.PoolingCLS:
		return "cls"
	case llama.PoolingLast:
		return "last"
	case llama.PoolingRank:
		return "rank"
	case llama.PoolingUnspecified:
		return "unspecified"
	}
	return strconv.Itoa(p)
}

package testmodel

import (
	"math"
	"strings"

	"github.com/memd-dev/memd/inference/gguf"
)

// Embedder is a one-layer llama model with mean pooling whose embeddings can
// be computed directly: the query and key weights are zero, so attention is
// a uniform average over the causal prefix of each token's value vector; the
// FFN is zero; everything else is random. Embed does that arithmetic in Go.
type Embedder struct {
	Path string
	Cfg  Config
}

// WriteEmbedder writes dir/<Name>.gguf (default "embedder") with
// llama.pooling_type = mean. Layers is forced to 1; F16 is ignored (F32).
func WriteEmbedder(dir string, cfg Config) (*Embedder, error) {
	if cfg.Name == "" {
		cfg.Name = "embedder"
	}
	cfg.Layers, cfg.F16 = 1, false
	cfg = cfg.withDefaults()
	cfg.Vocab = len(spmVocab(cfg.Vocab).tokens)
	path, err := writeLlamaModel(dir, cfg, func(w *gguf.Writer) {
		w.Set("llama.pooling_type", uint32(1))
	}, embedderWeights(cfg))
	if err != nil {
		return nil, err
	}
	return &Embedder{Path: path, Cfg: cfg}, nil
}

func embedderWeights(cfg Config) weightFunc {
	random := randomWeights(cfg)
	return func(name string, shape []uint64) func(int64) float32 {
		for _, zero := range []string{"attn_q", "attn_k", "ffn_gate", "ffn_up", "ffn_down", "output.weight"} {
			if strings.Contains(name, zero) {
				return func(int64) float32 { return 0 }
			}
		}
		return random(name, shape)
	}
}

// Embed returns the mean-pooled, unnormalized embedding llama.cpp computes
// for one sequence of tokens (what llama_get_embeddings_seq returns),
// computed in float64.
func (e *Embedder) Embed(tokens []int32) []float32 {
	cfg := e.Cfg
	w := embedderWeights(cfg)
	get := func(name string, shape ...uint64) func(int64) float32 { return w(name, shape) }
	n, kv := cfg.Embd, cfg.EmbdKV()
	tok := get("token_embd.weight", uint64(n), uint64(cfg.Vocab))
	attnNorm := get("blk.0.attn_norm.weight", uint64(n))
	wv := get("blk.0.attn_v.weight", uint64(n), uint64(kv))
	wo := get("blk.0.attn_output.weight", uint64(n), uint64(n))
	outNorm := get("output_norm.weight", uint64(n))

	pooled := make([]float64, n)
	sumV := make([]float64, kv)
	group := cfg.Heads / cfg.HeadsKV
	hd := cfg.Embd / cfg.Heads
	for i, t := range tokens {
		x := make([]float64, n)
		for d := range x {
			x[d] = float64(tok(int64(t)*int64(n) + int64(d)))
		}
		a := rmsNorm(x, attnNorm)
		for r := range kv {
			var s float64
			for c := range n {
				s += float64(wv(int64(r*n+c))) * a[c]
			}
			sumV[r] += s
		}
		// head h reads kv head h/group; uniform weights over tokens 0..i
		o := make([]float64, n)
		for h := range cfg.Heads {
			g := h / group
			for d := range hd {
				o[h*hd+d] = sumV[g*hd+d] / float64(i+1)
			}
		}
		for r := range n {
			var s float64
			for c := range n {
				s += float64(wo(int64(r*n+c))) * o[c]
			}
			x[r] += s
		}
		out := rmsNorm(x, outNorm)
		for d := range pooled {
			pooled[d] += out[d] / float64(len(tokens))
		}
	}
	res := make([]float32, n)
	for d, v := range pooled {
		res[d] = float32(v)
	}
	return res
}

func rmsNorm(x []float64, weight func(int64) float32) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	scale := 1 / math.Sqrt(ss/float64(len(x))+RMSEpsilon)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * scale * float64(weight(int64(i)))
	}
	return out
}

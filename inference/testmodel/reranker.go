package testmodel

import (
	"math"
	"strings"

	"github.com/memd-dev/memd/inference/gguf"
)

// Reranker is a one-layer bert model with rank pooling (a cross-encoder)
// whose score can be computed directly: the query and key weights and
// biases are zero, so attention is a uniform average of the value vectors
// over the whole sequence; the FFN is zero; the embedding and norm tensors
// and the classification head (cls, cls.output) are random. Score does that
// arithmetic in Go. It uses the built-in SPM tokenizer with add_bos and
// add_eos set, so a pair reads [BOS] query [EOS] document [EOS].
type Reranker struct {
	Path string
	Cfg  Config
}

// WriteReranker writes dir/<Name>.gguf (default "reranker"), architecture
// bert with bert.pooling_type = 4 (rank). Layers is forced to 1; HeadsKV
// to Heads; F16 and Q8 are ignored (F32).
func WriteReranker(dir string, cfg Config) (*Reranker, error) {
	if cfg.Name == "" {
		cfg.Name = "reranker"
	}
	cfg.Layers, cfg.F16, cfg.Q8, cfg.HeadsKV = 1, false, false, cfg.Heads
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	v := spmVocab(cfg.Vocab)
	cfg.Vocab = len(v.tokens)

	w := gguf.NewWriter()
	setGeneral(w, "bert", cfg)
	w.Set("bert.context_length", uint32(cfg.Ctx))
	w.Set("bert.embedding_length", uint32(cfg.Embd))
	w.Set("bert.block_count", uint32(1))
	w.Set("bert.feed_forward_length", uint32(cfg.FF))
	w.Set("bert.attention.head_count", uint32(cfg.Heads))
	w.Set("bert.attention.layer_norm_epsilon", float32(LayerNormEpsilon))
	w.Set("bert.attention.causal", false)
	w.Set("bert.pooling_type", uint32(4))
	setTokenizer(w, v, true)
	w.Set("tokenizer.ggml.token_type_count", uint32(2))
	path, err := writeModel(w, dir, cfg, rerankerTensors(cfg), rerankerWeights(cfg))
	if err != nil {
		return nil, err
	}
	return &Reranker{Path: path, Cfg: cfg}, nil
}

// LayerNormEpsilon is the layer_norm_epsilon of the generated reranker.
const LayerNormEpsilon = 1e-5

func rerankerTensors(cfg Config) []tensorSpec {
	e, ff, nv := uint64(cfg.Embd), uint64(cfg.FF), uint64(cfg.Vocab)
	p := "blk.0."
	return []tensorSpec{
		{"token_embd.weight", []uint64{e, nv}},
		{"token_types.weight", []uint64{e, 2}},
		{"position_embd.weight", []uint64{e, uint64(cfg.Ctx)}},
		{"token_embd_norm.weight", []uint64{e}},
		{"token_embd_norm.bias", []uint64{e}},
		{p + "attn_q.weight", []uint64{e, e}},
		{p + "attn_q.bias", []uint64{e}},
		{p + "attn_k.weight", []uint64{e, e}},
		{p + "attn_k.bias", []uint64{e}},
		{p + "attn_v.weight", []uint64{e, e}},
		{p + "attn_v.bias", []uint64{e}},
		{p + "attn_output.weight", []uint64{e, e}},
		{p + "attn_output.bias", []uint64{e}},
		{p + "attn_output_norm.weight", []uint64{e}},
		{p + "attn_output_norm.bias", []uint64{e}},
		{p + "ffn_up.weight", []uint64{e, ff}},
		{p + "ffn_up.bias", []uint64{ff}},
		{p + "ffn_down.weight", []uint64{ff, e}},
		{p + "ffn_down.bias", []uint64{e}},
		{p + "layer_output_norm.weight", []uint64{e}},
		{p + "layer_output_norm.bias", []uint64{e}},
		{"cls.weight", []uint64{e, e}},
		{"cls.bias", []uint64{e}},
		{"cls.output.weight", []uint64{e, 1}},
		{"cls.output.bias", []uint64{1}},
	}
}

func rerankerWeights(cfg Config) weightFunc {
	random := randomWeights(cfg)
	return func(name string, shape []uint64) func(int64) float32 {
		for _, zero := range []string{"attn_q.", "attn_k.", "ffn_up.", "ffn_down."} {
			if strings.Contains(name, zero) {
				return func(int64) float32 { return 0 }
			}
		}
		if strings.HasSuffix(name, ".bias") {
			r := newRandom(cfg.Seed, name)
			return func(i int64) float32 { return 0.1 * r.at(i) }
		}
		if name == "token_types.weight" || name == "position_embd.weight" {
			r := newRandom(cfg.Seed, name)
			return func(i int64) float32 { return 0.5 * r.at(i) }
		}
		return random(name, shape)
	}
}

// Score returns the rank score llama.cpp computes for one sequence of
// tokens (what llama_get_embeddings_seq(ctx, seq)[0] is): the classification
// head over the first token's output, computed in float64.
func (r *Reranker) Score(tokens []int32) float64 {
	cfg := r.Cfg
	w := rerankerWeights(cfg)
	get := func(name string, shape ...uint64) func(int64) float32 { return w(name, shape) }
	n := cfg.Embd
	un := uint64(n)
	tok := get("token_embd.weight", un, uint64(cfg.Vocab))
	typ := get("token_types.weight", un, 2)
	pos := get("position_embd.weight", un, uint64(cfg.Ctx))
	norm := func(prefix string, x []float64) []float64 {
		return layerNorm(x, get(prefix+".weight", un), get(prefix+".bias", un))
	}
	matVec := func(name string, rows int, x []float64) []float64 {
		m := get(name+".weight", uint64(len(x)), uint64(rows))
		b := get(name+".bias", uint64(rows))
		out := make([]float64, rows)
		for r := range rows {
			s := float64(b(int64(r)))
			for c, v := range x {
				s += float64(m(int64(r*len(x)+c))) * v
			}
			out[r] = s
		}
		return out
	}

	h := make([][]float64, len(tokens))
	mean := make([]float64, n)
	for i, t := range tokens {
		x := make([]float64, n)
		for d := range x {
			x[d] = float64(tok(int64(t)*int64(n)+int64(d))) + float64(typ(int64(d))) + float64(pos(int64(i)*int64(n)+int64(d)))
		}
		h[i] = norm("token_embd_norm", x)
		for d, v := range h[i] {
			mean[d] += v / float64(len(tokens))
		}
	}
	// uniform attention: every head of every row reads the mean value
	o := matVec("blk.0.attn_v", n, mean)
	a := matVec("blk.0.attn_output", n, o)
	x := make([]float64, n)
	for d := range x {
		x[d] = a[d] + h[0][d] // the first token is the one rank pooling reads
	}
	x = norm("blk.0.attn_output_norm", x) // the FFN adds 0
	x = norm("blk.0.layer_output_norm", x)
	c := matVec("cls", n, x)
	for d := range c {
		c[d] = math.Tanh(c[d])
	}
	return matVec("cls.output", 1, c)[0]
}

func layerNorm(x []float64, weight, bias func(int64) float32) []float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var variance float64
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	variance /= float64(len(x))
	scale := 1 / math.Sqrt(variance+LayerNormEpsilon)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)*scale*float64(weight(int64(i))) + float64(bias(int64(i)))
	}
	return out
}

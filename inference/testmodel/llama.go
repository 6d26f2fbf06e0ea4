package testmodel

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/memd-dev/memd/inference/gguf"
)

// RMSEpsilon is the layer_norm_rms_epsilon of every generated model.
const RMSEpsilon = 1e-5

// WriteLlama writes a llama-architecture model with seeded random weights and
// the built-in SPM tokenizer to dir/<Name>.gguf and returns the path. Tensors
// are generated while writing, so a 1B shape needs no more memory than a
// tiny one.
func WriteLlama(dir string, cfg Config) (string, error) {
	cfg = cfg.withDefaults()
	return writeLlamaModel(dir, cfg, nil, randomWeights(cfg))
}

func writeLlamaModel(dir string, cfg Config, extra func(*gguf.Writer), weights weightFunc) (string, error) {
	if err := cfg.validate(); err != nil {
		return "", err
	}
	v := spmVocab(cfg.Vocab)
	cfg.Vocab = len(v.tokens)
	w := gguf.NewWriter()
	setLlamaMeta(w, cfg, v)
	if extra != nil {
		extra(w)
	}
	return writeModel(w, dir, cfg, llamaTensors(cfg), weights)
}

func setLlamaMeta(w *gguf.Writer, cfg Config, v *vocab) {
	setGeneral(w, "llama", cfg)
	w.Set("llama.context_length", uint32(cfg.Ctx))
	w.Set("llama.embedding_length", uint32(cfg.Embd))
	w.Set("llama.block_count", uint32(cfg.Layers))
	w.Set("llama.feed_forward_length", uint32(cfg.FF))
	w.Set("llama.attention.head_count", uint32(cfg.Heads))
	w.Set("llama.attention.head_count_kv", uint32(cfg.HeadsKV))
	w.Set("llama.attention.layer_norm_rms_epsilon", float32(RMSEpsilon))
	w.Set("llama.rope.dimension_count", uint32(cfg.Embd/cfg.Heads))
	w.Set("llama.rope.freq_base", float32(10000))
	w.Set("llama.vocab_size", uint32(len(v.tokens)))
	setTokenizer(w, v, false)
	if cfg.ChatTemplate {
		w.Set("tokenizer.chat_template", GemmaTemplate)
	}
}

// llamaAttention is layer p's attention as llama lays it out (and
// gemma-embedding after it): a norm, then the q, k, v and output
// projections, kv wide for k and v.
func llamaAttention(p string, e, kv uint64) []tensorSpec {
	return []tensorSpec{
		{p + "attn_norm.weight", []uint64{e}},
		{p + "attn_q.weight", []uint64{e, e}},
		{p + "attn_k.weight", []uint64{e, kv}},
		{p + "attn_v.weight", []uint64{e, kv}},
		{p + "attn_output.weight", []uint64{e, e}},
	}
}

func llamaTensors(cfg Config) []tensorSpec {
	e, kv, ff, nv := uint64(cfg.Embd), uint64(cfg.EmbdKV()), uint64(cfg.FF), uint64(cfg.Vocab)
	ts := []tensorSpec{{"token_embd.weight", []uint64{e, nv}}}
	for l := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts, llamaAttention(p, e, kv)...)
		ts = append(ts,
			tensorSpec{p + "ffn_norm.weight", []uint64{e}},
			tensorSpec{p + "ffn_gate.weight", []uint64{e, ff}},
			tensorSpec{p + "ffn_down.weight", []uint64{ff, e}},
			tensorSpec{p + "ffn_up.weight", []uint64{e, ff}},
		)
	}
	return append(ts, tensorSpec{"output_norm.weight", []uint64{e}}, tensorSpec{"output.weight", []uint64{e, nv}})
}

// randomWeights gives uniform weights scaled by 1/sqrt(fan-in) (embeddings
// in [-1, 1), norms near 1), a pure function of seed, name and index.
func randomWeights(cfg Config) weightFunc {
	return func(name string, shape []uint64) func(int64) float32 {
		r := newRandom(cfg.Seed, name)
		if len(shape) == 1 {
			return func(i int64) float32 { return 1 + 0.1*r.at(i) }
		}
		scale := float32(math.Sqrt(3 / float64(shape[0])))
		if name == "token_embd.weight" {
			scale = 1
		}
		return func(i int64) float32 { return scale * r.at(i) }
	}
}

// random is a counter-based generator: at(i) is uniform in [-1, 1) and
// depends only on the seed, the stream name and i, so weights can be
// generated in any order and recomputed by reference code.
type random struct{ key uint64 }

func newRandom(seed uint64, name string) random {
	h := fnv.New64a()
	h.Write([]byte(name))
	return random{key: splitmix(seed ^ h.Sum64())}
}

func (r random) at(i int64) float32 {
	return float32(splitmix(r.key+uint64(i))>>40)/float32(1<<23) - 1
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

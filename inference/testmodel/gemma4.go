package testmodel

import (
	"fmt"

	"github.com/memd-dev/memd/inference/gguf"
)

// Gemma4Config is the shape of a generated Gemma 4 model: llama.cpp's
// gemma4 architecture as the E2B/E4B models use it (src/models/gemma4.cpp):
// sliding-window layers with full-attention layers between them, wider
// heads on the full layers, proportional RoPE (rope_freqs) there, the last
// SharedKV layers reading the KV cache of earlier ones, per-layer token
// inputs, GELU feed-forward, final logit soft-capping. The zero value of
// every field but VocabPath gives a small model (tens of MB, mostly the
// 262k-token embeddings) that loads and decodes fast.
type Gemma4Config struct {
	Name string // file name without extension; default "gemma4-tiny"
	// VocabPath is ggml-vocab-gemma-4.gguf from the llama.cpp source: the
	// real tokenizer and chat template are copied from it.
	VocabPath string
	Embd      int    // default 64
	Heads     int    // default 4
	HeadsKV   int    // default 2
	HeadDim   int    // head width on full-attention layers; default 32
	HeadDimSW int    // head width on sliding-window layers; default 16
	FF        int    // default 2*Embd
	PerLayer  int    // per-layer input width; default 16
	Window    int    // sliding window; default 64
	Ctx       int    // context_length; default 8192
	Seed      uint64 // weights are a pure function of Seed and tensor name
}

// Gemma4Pattern is which layers use the sliding window (true) and which
// attend to the whole context, five to one as in Gemma 4; the last
// Gemma4SharedKV layers reuse the cache of the last layer of their kind
// before them.
var Gemma4Pattern = []bool{true, true, true, false, true, false}

// Gemma4SharedKV is how many final layers own no KV cache.
const Gemma4SharedKV = 2

func (c Gemma4Config) withDefaults() Gemma4Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Name == "" {
		c.Name = "gemma4-tiny"
	}
	def(&c.Embd, 64)
	def(&c.Heads, 4)
	def(&c.HeadsKV, 2)
	def(&c.HeadDim, 32)
	def(&c.HeadDimSW, 16)
	def(&c.FF, 2*c.Embd)
	def(&c.PerLayer, 16)
	def(&c.Window, 64)
	def(&c.Ctx, 8192)
	return c
}

// WriteGemma4 writes dir/<Name>.gguf and returns its path. Matrices are
// Q8_0 (their widths are multiples of 32), as a quantized Gemma 4 would
// be; norms are F32.
func WriteGemma4(dir string, cfg Gemma4Config) (string, error) {
	cfg = cfg.withDefaults()
	v, err := readVocab(cfg.VocabPath)
	if err != nil {
		return "", err
	}
	w := gguf.NewWriter()
	setGeneral(w, "gemma4", Config{Name: cfg.Name, Q8: true})
	const a = "gemma4."
	n := uint32(len(Gemma4Pattern))
	w.Set(a+"context_length", uint32(cfg.Ctx))
	w.Set(a+"embedding_length", uint32(cfg.Embd))
	w.Set(a+"block_count", n)
	w.Set(a+"feed_forward_length", uint32(cfg.FF))
	w.Set(a+"attention.head_count", uint32(cfg.Heads))
	w.Set(a+"attention.head_count_kv", uint32(cfg.HeadsKV))
	w.Set(a+"attention.key_length", uint32(cfg.HeadDim))
	w.Set(a+"attention.value_length", uint32(cfg.HeadDim))
	w.Set(a+"attention.key_length_swa", uint32(cfg.HeadDimSW))
	w.Set(a+"attention.value_length_swa", uint32(cfg.HeadDimSW))
	w.Set(a+"rope.dimension_count", uint32(cfg.HeadDim))
	w.Set(a+"rope.dimension_count_swa", uint32(cfg.HeadDimSW))
	w.Set(a+"rope.freq_base", float32(1e6))
	w.Set(a+"rope.freq_base_swa", float32(1e4))
	w.Set(a+"attention.layer_norm_rms_epsilon", float32(1e-6))
	w.Set(a+"attention.sliding_window", uint32(cfg.Window))
	w.Set(a+"attention.sliding_window_pattern", Gemma4Pattern)
	w.Set(a+"attention.shared_kv_layers", uint32(Gemma4SharedKV))
	w.Set(a+"embedding_length_per_layer_input", uint32(cfg.PerLayer))
	w.Set(a+"final_logit_softcapping", float32(30))
	v.set(w)
	tensors := gemma4Tensors(cfg, v.tokens)
	return writeModel(w, dir, Config{Name: cfg.Name, Q8: true}, tensors, gemma4Weights(cfg))
}

// gemma4Weights are random, with small token embeddings: Gemma scales its
// input by sqrt(n_embd) and every block's output is RMS-normed, so with
// embeddings of unit size the input would outweigh all the blocks and the
// model would echo its last token whatever its weights (or an adapter)
// say.
func gemma4Weights(cfg Gemma4Config) weightFunc {
	random := randomWeights(Config{Seed: cfg.Seed})
	return func(name string, shape []uint64) func(int64) float32 {
		if name == "token_embd.weight" {
			r := newRandom(cfg.Seed, name)
			return func(i int64) float32 { return 0.02 * r.at(i) }
		}
		return random(name, shape)
	}
}

// gemma4Tensors lists the tensors load_arch_tensors of llama.cpp's gemma4
// asks for, in its shapes, without the optional MoE and fused-QKV ones.
func gemma4Tensors(cfg Gemma4Config, vocab int) []tensorSpec {
	e, nv, ff, pl := uint64(cfg.Embd), uint64(vocab), uint64(cfg.FF), uint64(cfg.PerLayer)
	n := uint64(len(Gemma4Pattern))
	ts := []tensorSpec{
		{"token_embd.weight", []uint64{e, nv}},
		{"per_layer_token_embd.weight", []uint64{pl * n, nv}},
		{"per_layer_model_proj.weight", []uint64{e, pl * n}},
		{"per_layer_proj_norm.weight", []uint64{pl}},
		{"output_norm.weight", []uint64{e}},
		{"rope_freqs.weight", []uint64{uint64(cfg.HeadDim / 2)}},
	}
	kvLayers := len(Gemma4Pattern) - Gemma4SharedKV
	for l, swa := range Gemma4Pattern {
		hd := uint64(cfg.HeadDim)
		if swa {
			hd = uint64(cfg.HeadDimSW)
		}
		q, kv := hd*uint64(cfg.Heads), hd*uint64(cfg.HeadsKV)
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			tensorSpec{p + "attn_norm.weight", []uint64{e}},
			tensorSpec{p + "attn_q.weight", []uint64{e, q}},
			tensorSpec{p + "attn_q_norm.weight", []uint64{hd}},
			tensorSpec{p + "attn_output.weight", []uint64{q, e}},
			tensorSpec{p + "post_attention_norm.weight", []uint64{e}},
			tensorSpec{p + "layer_output_scale.weight", []uint64{1}},
			tensorSpec{p + "ffn_norm.weight", []uint64{e}},
			tensorSpec{p + "ffn_gate.weight", []uint64{e, ff}},
			tensorSpec{p + "ffn_up.weight", []uint64{e, ff}},
			tensorSpec{p + "ffn_down.weight", []uint64{ff, e}},
			tensorSpec{p + "post_ffw_norm.weight", []uint64{e}},
			tensorSpec{p + "inp_gate.weight", []uint64{e, pl}},
			tensorSpec{p + "proj.weight", []uint64{pl, e}},
			tensorSpec{p + "post_norm.weight", []uint64{e}},
		)
		if l < kvLayers {
			ts = append(ts,
				tensorSpec{p + "attn_k.weight", []uint64{e, kv}},
				tensorSpec{p + "attn_v.weight", []uint64{e, kv}},
				tensorSpec{p + "attn_k_norm.weight", []uint64{hd}},
			)
		}
	}
	return ts
}

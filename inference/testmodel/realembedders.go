package testmodel

import (
	"fmt"

	"github.com/memd-dev/memd/inference/gguf"
)

// EmbedderConfig is the shape of a generated embedder with a real
// vocabulary. The zero value of every field but VocabPath is a small model.
type EmbedderConfig struct {
	Name      string // file name without extension; a default per architecture
	VocabPath string // a llama.cpp vocab GGUF whose tokenizer the model takes
	Embd      int    // default 64
	Layers    int    // default 2
	Heads     int    // default 4
	FF        int    // default 2*Embd
	Ctx       int    // context_length; default 2048
	Seed      uint64
}

func (c EmbedderConfig) withDefaults(name string) EmbedderConfig {
	if c.Name == "" {
		c.Name = name
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Embd, 64)
	def(&c.Layers, 2)
	def(&c.Heads, 4)
	def(&c.FF, 2*c.Embd)
	def(&c.Ctx, 2048)
	return c
}

// WriteEmbeddingGemma writes an EmbeddingGemma-architecture model
// (llama.cpp's gemma-embedding: bidirectional attention with a symmetric
// sliding window on five layers of six, q/k norms, post-norms, mean
// pooling) with random weights and the tokenizer of cfg.VocabPath (use
// ggml-vocab-gemma-4.gguf: the Gemma vocabulary). Its chat template is
// dropped: an embedder has none. Layers defaults to 6 and must reach a
// full-attention layer (the sixth): llama.cpp v0.5.0 aborts the decode of
// a model whose layers all slide.
func WriteEmbeddingGemma(dir string, cfg EmbedderConfig) (string, error) {
	if cfg.Layers == 0 {
		cfg.Layers = 6
	}
	if cfg.Layers < 6 {
		return "", fmt.Errorf("testmodel: EmbeddingGemma needs 6 layers or more (its sixth attends to everything), not %d", cfg.Layers)
	}
	cfg = cfg.withDefaults("embeddinggemma-tiny")
	v, err := readVocab(cfg.VocabPath)
	if err != nil {
		return "", err
	}
	w := gguf.NewWriter()
	setGeneral(w, "gemma-embedding", Config{Name: cfg.Name})
	const a = "gemma-embedding."
	hd := cfg.Embd / cfg.Heads
	w.Set(a+"context_length", uint32(cfg.Ctx))
	w.Set(a+"embedding_length", uint32(cfg.Embd))
	w.Set(a+"block_count", uint32(cfg.Layers))
	w.Set(a+"feed_forward_length", uint32(cfg.FF))
	w.Set(a+"attention.head_count", uint32(cfg.Heads))
	w.Set(a+"attention.head_count_kv", uint32(cfg.Heads))
	w.Set(a+"attention.key_length", uint32(hd))
	w.Set(a+"attention.value_length", uint32(hd))
	w.Set(a+"attention.layer_norm_rms_epsilon", float32(1e-6))
	w.Set(a+"attention.sliding_window", uint32(64))
	w.Set(a+"rope.freq_base", float32(1e6))
	w.Set(a+"pooling_type", uint32(1)) // mean
	v.set(w, "tokenizer.chat_template")
	e, ff, kv := uint64(cfg.Embd), uint64(cfg.FF), uint64(cfg.Embd)
	ts := []tensorSpec{{"token_embd.weight", []uint64{e, uint64(v.tokens)}}, {"output_norm.weight", []uint64{e}}}
	for l := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			tensorSpec{p + "attn_norm.weight", []uint64{e}},
			tensorSpec{p + "attn_q.weight", []uint64{e, e}},
			tensorSpec{p + "attn_k.weight", []uint64{e, kv}},
			tensorSpec{p + "attn_v.weight", []uint64{e, kv}},
			tensorSpec{p + "attn_output.weight", []uint64{e, e}},
			tensorSpec{p + "post_attention_norm.weight", []uint64{e}},
			tensorSpec{p + "attn_q_norm.weight", []uint64{uint64(hd)}},
			tensorSpec{p + "attn_k_norm.weight", []uint64{uint64(hd)}},
			tensorSpec{p + "ffn_norm.weight", []uint64{e}},
			tensorSpec{p + "ffn_gate.weight", []uint64{e, ff}},
			tensorSpec{p + "ffn_up.weight", []uint64{e, ff}},
			tensorSpec{p + "ffn_down.weight", []uint64{ff, e}},
			tensorSpec{p + "post_ffw_norm.weight", []uint64{e}},
		)
	}
	return writeModel(w, dir, Config{Name: cfg.Name, Q8: true}, ts, randomWeights(Config{Seed: cfg.Seed}))
}

// WriteBGE writes a BERT-architecture embedder in the shape of BGE (CLS
// pooling, learned positions, post-layer norms) with random weights and
// the WordPiece tokenizer of cfg.VocabPath (use ggml-vocab-bert-bge.gguf).
func WriteBGE(dir string, cfg EmbedderConfig) (string, error) {
	cfg = cfg.withDefaults("bge-tiny")
	v, err := readVocab(cfg.VocabPath)
	if err != nil {
		return "", err
	}
	w := gguf.NewWriter()
	setGeneral(w, "bert", Config{Name: cfg.Name})
	w.Set("bert.context_length", uint32(cfg.Ctx))
	w.Set("bert.embedding_length", uint32(cfg.Embd))
	w.Set("bert.block_count", uint32(cfg.Layers))
	w.Set("bert.feed_forward_length", uint32(cfg.FF))
	w.Set("bert.attention.head_count", uint32(cfg.Heads))
	w.Set("bert.attention.layer_norm_epsilon", float32(1e-12))
	w.Set("bert.attention.causal", false)
	w.Set("bert.pooling_type", uint32(2)) // CLS
	v.set(w)
	e, ff := uint64(cfg.Embd), uint64(cfg.FF)
	ts := []tensorSpec{
		{"token_embd.weight", []uint64{e, uint64(v.tokens)}},
		{"token_types.weight", []uint64{e, 2}},
		{"position_embd.weight", []uint64{e, uint64(cfg.Ctx)}},
		{"token_embd_norm.weight", []uint64{e}},
		{"token_embd_norm.bias", []uint64{e}},
	}
	for l := range cfg.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		for _, m := range []struct {
			name    string
			in, out uint64
		}{{"attn_q", e, e}, {"attn_k", e, e}, {"attn_v", e, e}, {"attn_output", e, e}, {"ffn_up", e, ff}, {"ffn_down", ff, e}} {
			ts = append(ts, tensorSpec{p + m.name + ".weight", []uint64{m.in, m.out}}, tensorSpec{p + m.name + ".bias", []uint64{m.out}})
		}
		for _, norm := range []string{"attn_output_norm", "layer_output_norm"} {
			ts = append(ts, tensorSpec{p + norm + ".weight", []uint64{e}}, tensorSpec{p + norm + ".bias", []uint64{e}})
		}
	}
	// F32: BERT adds its position and token-type rows to the embeddings,
	// and the CPU backend adds no quantized tensor.
	return writeModel(w, dir, Config{Name: cfg.Name}, ts, randomWeights(Config{Seed: cfg.Seed}))
}

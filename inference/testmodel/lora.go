package testmodel

import (
	"fmt"
	"path/filepath"

	"github.com/memd-dev/memd/inference/gguf"
)

// LoRAConfig describes a random LoRA adapter for a generated model.
type LoRAConfig struct {
	Name    string   // file name without extension; default "<base>-lora"
	Rank    int      // default 4
	Alpha   float32  // adapter.lora.alpha; default Rank (scale 1)
	Targets []string // per-layer tensors to adapt; default attn_q, attn_v, ffn_up
	Output  bool     // also adapt output.weight
	Seed    uint64
}

// WriteLoRA writes a LoRA adapter GGUF for the model cfg describes. For a
// base tensor of ggml shape [in, out], lora_a has shape [in, rank] and
// lora_b [rank, out]; llama.cpp adds scale*alpha/rank * B(Ax) to its product.
func WriteLoRA(dir string, base Config, lc LoRAConfig) (string, error) {
	base = base.withDefaults()
	v := spmVocab(base.Vocab)
	base.Vocab = len(v.tokens)
	if lc.Name == "" {
		lc.Name = base.Name + "-lora"
	}
	return writeLoRA(dir, "llama", base.Layers, llamaTensors(base), lc)
}

// WriteGemma4LoRA writes a LoRA adapter for the model WriteGemma4(dir,
// cfg) writes, on the same targets as WriteLoRA (the sliding-window and
// full-attention layers' projections differ in width).
func WriteGemma4LoRA(dir string, cfg Gemma4Config, lc LoRAConfig) (string, error) {
	cfg = cfg.withDefaults()
	v, err := readVocab(cfg.VocabPath)
	if err != nil {
		return "", err
	}
	if lc.Name == "" {
		lc.Name = cfg.Name + "-lora"
	}
	return writeLoRA(dir, "gemma4", len(Gemma4Pattern), gemma4Tensors(cfg, v.tokens), lc)
}

func writeLoRA(dir, arch string, layers int, tensors []tensorSpec, lc LoRAConfig) (string, error) {
	if lc.Rank == 0 {
		lc.Rank = 4
	}
	if lc.Alpha == 0 {
		lc.Alpha = float32(lc.Rank)
	}
	if lc.Targets == nil {
		lc.Targets = []string{"attn_q", "attn_v", "ffn_up"}
	}
	shapes := map[string][]uint64{}
	for _, t := range tensors {
		shapes[t.name] = t.shape
	}
	var names []string
	for l := range layers {
		for _, t := range lc.Targets {
			name := fmt.Sprintf("blk.%d.%s.weight", l, t)
			if _, ok := shapes[name]; ok || t != "attn_v" { // shared-KV layers have no attn_v
				names = append(names, name)
			}
		}
	}
	if lc.Output {
		names = append(names, "output.weight")
	}
	w := newAdapterWriter(arch, lc.Name, lc.Alpha)
	r := uint64(lc.Rank)
	for _, name := range names {
		shape, ok := shapes[name]
		if !ok || len(shape) != 2 {
			return "", fmt.Errorf("testmodel: LoRA target %s is not a matrix of the model", name)
		}
		in, out := shape[0], shape[1]
		ra, rb := newRandom(lc.Seed, name+".lora_a"), newRandom(lc.Seed, name+".lora_b")
		w.AddTensor(name+".lora_a", gguf.TensorF32, []uint64{in, r}, gguf.Floats(gguf.TensorF32, int64(in*r), func(i int64) float32 { return ra.at(i) / 4 }))
		w.AddTensor(name+".lora_b", gguf.TensorF32, []uint64{r, out}, gguf.Floats(gguf.TensorF32, int64(r*out), func(i int64) float32 { return rb.at(i) / 4 }))
	}
	return writeAdapter(w, dir, lc.Name)
}

func newAdapterWriter(arch, name string, alpha float32) *gguf.Writer {
	w := gguf.NewWriter()
	w.Set("general.architecture", arch)
	w.Set("general.type", "adapter")
	w.Set("general.name", name)
	w.Set("adapter.type", "lora")
	w.Set("adapter.lora.alpha", alpha)
	return w
}

func writeAdapter(w *gguf.Writer, dir, name string) (string, error) {
	path := filepath.Join(dir, name+".gguf")
	if err := w.WriteFile(path); err != nil {
		return "", fmt.Errorf("testmodel: write %s: %w", path, err)
	}
	return path, nil
}

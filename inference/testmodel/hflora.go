package testmodel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// HFLoRA is a LoRA adapter as training tools hold it, in Hugging Face's
// terms, for a model WriteLlama writes with Base: per layer and
// projection ("0/q_proj"), A is [Rank][in] and B [out][Rank] (row-major),
// and the change to the projection's weight [out][in] is Alpha/Rank·B·A.
// SavePEFT and SaveMLX write it as PEFT and mlx-lm save adapters; Merged
// writes the model with the change made in the weights, the reference an
// imported adapter must match.
type HFLoRA struct {
	Base  Config
	Rank  int
	Alpha float32
	A, B  map[string][]float32
}

// hfProjection is one projection of a llama layer: its Hugging Face and
// llama.cpp names, its module, and its widths.
type hfProjection struct {
	hf, gguf, module string
	in, out          int
}

func hfProjections(c Config) []hfProjection {
	e, kv, ff := c.Embd, c.EmbdKV(), c.FF
	return []hfProjection{
		{"q_proj", "attn_q", "self_attn", e, e}, {"k_proj", "attn_k", "self_attn", e, kv},
		{"v_proj", "attn_v", "self_attn", e, kv}, {"o_proj", "attn_output", "self_attn", e, e},
		{"gate_proj", "ffn_gate", "mlp", e, ff}, {"up_proj", "ffn_up", "mlp", e, ff}, {"down_proj", "ffn_down", "mlp", ff, e},
	}
}

// NewHFLoRA makes a random adapter of every projection of every layer.
func NewHFLoRA(base Config, rank int, alpha float32, seed uint64) *HFLoRA {
	base = base.withDefaults()
	rng := rand.New(rand.NewPCG(seed, 2))
	l := &HFLoRA{Base: base, Rank: rank, Alpha: alpha, A: map[string][]float32{}, B: map[string][]float32{}}
	uniform := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 0.3 * (2*rng.Float32() - 1)
		}
		return v
	}
	for layer := range base.Layers {
		for _, p := range hfProjections(base) {
			k := fmt.Sprintf("%d/%s", layer, p.hf)
			l.A[k], l.B[k] = uniform(rank*p.in), uniform(p.out*rank)
		}
	}
	return l
}

// Merged writes the base model with every change added to its weights, in
// llama.cpp's row order: Hugging Face's query and key rows are, per head,
// two RoPE halves, which llama.cpp's converter interleaves (its row
// h·hd + 2i + half is Hugging Face's h·hd + half·hd/2 + i).
func (l *HFLoRA) Merged(dir, name string) (string, error) {
	cfg := l.Base
	cfg.Name, cfg.Delta = name, map[string][]float32{}
	for layer := range cfg.Layers {
		for _, p := range hfProjections(cfg) {
			k := fmt.Sprintf("%d/%s", layer, p.hf)
			heads := map[string]int{"q_proj": cfg.Heads, "k_proj": cfg.HeadsKV}[p.hf]
			d := make([]float32, p.out*p.in)
			for row := range p.out {
				src := row
				if heads > 0 {
					hd := p.out / heads
					h, j := row/hd, row%hd
					src = h*hd + (j%2)*hd/2 + j/2
				}
				for col := range p.in {
					var s float32
					for r := range l.Rank {
						s += l.B[k][src*l.Rank+r] * l.A[k][r*p.in+col]
					}
					d[row*p.in+col] = l.Alpha / float32(l.Rank) * s
				}
			}
			cfg.Delta[fmt.Sprintf("blk.%d.%s.weight", layer, p.gguf)] = d
		}
	}
	return WriteLlama(dir, cfg)
}

// SavePEFT writes dir/adapter_model.safetensors and adapter_config.json
// as PEFT saves them: lora_A [r, in] and lora_B [out, r], r and lora_alpha.
func (l *HFLoRA) SavePEFT(dir string) error {
	tensors := map[string]stTensor{}
	for layer := range l.Base.Layers {
		for _, p := range hfProjections(l.Base) {
			k := fmt.Sprintf("%d/%s", layer, p.hf)
			pre := fmt.Sprintf("base_model.model.model.layers.%d.%s.%s.", layer, p.module, p.hf)
			tensors[pre+"lora_A.weight"] = stTensor{[]int{l.Rank, p.in}, l.A[k]}
			tensors[pre+"lora_B.weight"] = stTensor{[]int{p.out, l.Rank}, l.B[k]}
		}
	}
	return saveAdapter(dir, "adapter_model.safetensors", tensors, map[string]any{"peft_type": "LORA", "r": l.Rank, "lora_alpha": l.Alpha})
}

// SaveMLX writes dir/adapters.safetensors and adapter_config.json as
// mlx-lm saves them: lora_a [in, r] and lora_b [r, out] (it computes
// x·a·b·scale), lora_parameters with rank and scale = alpha/rank.
func (l *HFLoRA) SaveMLX(dir string) error {
	tensors := map[string]stTensor{}
	for layer := range l.Base.Layers {
		for _, p := range hfProjections(l.Base) {
			k := fmt.Sprintf("%d/%s", layer, p.hf)
			pre := fmt.Sprintf("model.layers.%d.%s.%s.", layer, p.module, p.hf)
			tensors[pre+"lora_a"] = stTensor{[]int{p.in, l.Rank}, transposed(l.A[k], l.Rank, p.in)}
			tensors[pre+"lora_b"] = stTensor{[]int{l.Rank, p.out}, transposed(l.B[k], p.out, l.Rank)}
		}
	}
	return saveAdapter(dir, "adapters.safetensors", tensors,
		map[string]any{"lora_parameters": map[string]any{"rank": l.Rank, "scale": l.Alpha / float32(l.Rank)}})
}

func transposed(v []float32, rows, cols int) []float32 {
	out := make([]float32, len(v))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = v[r*cols+c]
		}
	}
	return out
}

type stTensor struct {
	shape []int
	data  []float32
}

func saveAdapter(dir, file string, tensors map[string]stTensor, config map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	raw, err := json.Marshal(config)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "adapter_config.json"), raw, 0o644); err != nil {
		return err
	}
	return writeSafetensors(filepath.Join(dir, file), tensors)
}

// writeSafetensors writes F32 tensors in the safetensors layout: an
// 8-byte little-endian header length, a JSON header, the data.
func writeSafetensors(path string, tensors map[string]stTensor) error {
	header := map[string]any{}
	var data []byte
	for name, t := range tensors {
		start := len(data)
		for _, v := range t.data {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
		}
		header[name] = map[string]any{"dtype": "F32", "shape": t.shape, "data_offsets": []int{start, len(data)}}
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(out, h...)
	return os.WriteFile(path, append(out, data...), 0o644)
}

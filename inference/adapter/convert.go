package adapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/memd-dev/memd/inference/gguf"
)

// ErrMismatch means the adapter was not trained on the base model given:
// another architecture, more layers, or other widths.
var ErrMismatch = errors.New("adapter does not fit the base model")

// Format is the tool that saved an adapter.
type Format string

const (
	PEFT Format = "peft"   // adapter_model.safetensors: lora_A [r, in], lora_B [out, r]
	MLX  Format = "mlx-lm" // adapters.safetensors: lora_a [in, r], lora_b [r, out]
)

// Result says what Convert wrote.
type Result struct {
	Format       Format
	Architecture string
	Tensors      int     // matrices adapted
	Rank         int     // LoRA rank
	Alpha        float32 // adapter.lora.alpha: the delta is alpha/rank * B·A
}

// projections maps Hugging Face's projection names to llama.cpp's.
var projections = map[string]string{
	"q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output",
	"gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down",
}

// loraName finds the layer, projection and half (a or b) in an adapter
// tensor's name, whatever prefix the tool and the model class put before
// it ("base_model.model.model.language_model.layers.3.self_attn.q_proj.lora_A.weight",
// "model.layers.3.mlp.up_proj.lora_b"). It is compiled on first use:
// memctl links this package, and every memctl start would pay for it.
var loraName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`layers\.(\d+)\.(?:self_attn|mlp)\.(\w+_proj)\.lora_([abAB])(?:\.weight)?$`)
})

// permuted are the architectures whose query and key rows llama.cpp's
// converter permutes (interleaved RoPE halves).
var permuted = []string{"llama", "llama4", "deci", "granite", "granitemoe", "mistral"}

// Convert reads the adapter saved in dir, checks it against the GGUF base
// model at basePath, and writes a GGUF LoRA to outPath.
func Convert(dir, basePath, outPath string) (Result, error) {
	format, weights, cfgPath, err := locate(dir)
	if err != nil {
		return Result{}, err
	}
	tensors, err := readSafetensors(weights)
	if err != nil {
		return Result{}, err
	}
	base, err := readBase(basePath)
	if err != nil {
		return Result{}, err
	}
	res := Result{Format: format, Architecture: base.arch}
	pairs, err := pairUp(tensors, format)
	if err != nil {
		return res, fmt.Errorf("%s: %w", weights, err)
	}
	if res.Rank, res.Alpha, err = readScale(cfgPath, format, pairs); err != nil {
		return res, err
	}
	w := gguf.NewWriter()
	w.Set("general.architecture", base.arch)
	w.Set("general.type", "adapter")
	w.Set("general.name", filepath.Base(dir))
	w.Set("adapter.type", "lora")
	w.Set("adapter.lora.alpha", res.Alpha)
	for _, name := range slices.Sorted(maps.Keys(pairs)) {
		p := pairs[name]
		if err := base.fit(name, &p); err != nil {
			return res, err
		}
		w.AddTensor(name+".lora_a", gguf.TensorF32, []uint64{uint64(p.in), uint64(p.rank)}, gguf.F32(p.a))
		w.AddTensor(name+".lora_b", gguf.TensorF32, []uint64{uint64(p.rank), uint64(p.out)}, gguf.F32(p.b))
		res.Tensors++
	}
	if err := w.WriteFile(outPath); err != nil {
		return res, fmt.Errorf("write %s: %w", outPath, err)
	}
	return res, nil
}

// locate finds the adapter's weights and config and says which tool saved
// them.
func locate(dir string) (Format, string, string, error) {
	cfg := filepath.Join(dir, "adapter_config.json")
	if _, err := os.Stat(cfg); err != nil {
		return "", "", "", fmt.Errorf("%s: no adapter_config.json: point at the folder PEFT or mlx-lm saved the adapter in", dir)
	}
	for _, c := range []struct {
		f    Format
		file string
	}{{PEFT, "adapter_model.safetensors"}, {MLX, "adapters.safetensors"}} {
		if p := filepath.Join(dir, c.file); fileExists(p) {
			return c.f, p, cfg, nil
		}
	}
	return "", "", "", fmt.Errorf("%s holds neither adapter_model.safetensors (PEFT) nor adapters.safetensors (mlx-lm)", dir)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// pair is one adapted matrix in PEFT's orientation: a is [rank][in], b is
// [out][rank], row-major, so the delta is B·A in Hugging Face's [out][in].
type pair struct {
	a, b          []float32
	in, out, rank int
	layer         int
	proj          string
	haveA, haveB  bool
}

func pairUp(tensors map[string]tensor, format Format) (map[string]pair, error) {
	pairs := map[string]pair{}
	for name, t := range tensors {
		m := loraName().FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("tensor %s is not a LoRA matrix of a projection memd knows (%v)", name, slices.Sorted(maps.Keys(projections)))
		}
		proj, ok := projections[m[2]]
		if !ok {
			return nil, fmt.Errorf("tensor %s adapts %s, which llama.cpp's architectures do not name", name, m[2])
		}
		if len(t.Shape) != 2 {
			return nil, fmt.Errorf("tensor %s has shape %v, not a matrix", name, t.Shape)
		}
		layer, _ := strconv.Atoi(m[1])
		key := fmt.Sprintf("blk.%d.%s.weight", layer, proj)
		p := pairs[key]
		p.layer, p.proj = layer, proj
		rows, cols, data := t.Shape[0], t.Shape[1], t.Data
		if format == MLX { // mlx-lm keeps x·A·B: its matrices are the transposes
			rows, cols, data = cols, rows, transpose(data, rows, cols)
		}
		if m[3] == "a" || m[3] == "A" {
			p.a, p.rank, p.in, p.haveA = data, rows, cols, true
		} else {
			p.b, p.out, p.haveB = data, rows, true
			if p.rank == 0 {
				p.rank = cols
			}
		}
		pairs[key] = p
	}
	for key, p := range pairs {
		if !p.haveA || !p.haveB {
			return nil, fmt.Errorf("%s has only one of its two LoRA matrices", key)
		}
		if len(p.b) != p.out*p.rank {
			return nil, fmt.Errorf("%s: lora_A has rank %d, lora_B does not", key, p.rank)
		}
	}
	if len(pairs) == 0 {
		return nil, errors.New("no LoRA matrices")
	}
	return pairs, nil
}

func transpose(v []float32, rows, cols int) []float32 {
	out := make([]float32, len(v))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = v[r*cols+c]
		}
	}
	return out
}

// readScale reads the rank and the scale from adapter_config.json: PEFT's
// r and lora_alpha; mlx-lm's lora_parameters rank and scale (its delta is
// scale·B·A, so alpha is scale·rank).
func readScale(path string, format Format, pairs map[string]pair) (int, float32, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var c struct {
		R         int      `json:"r"`
		LoraAlpha *float32 `json:"lora_alpha"`
		MLX       struct {
			Rank  int      `json:"rank"`
			Scale *float32 `json:"scale"`
		} `json:"lora_parameters"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	rank, alpha := c.R, c.LoraAlpha
	if format == MLX {
		rank = c.MLX.Rank
		if c.MLX.Scale != nil {
			a := *c.MLX.Scale * float32(rank)
			alpha = &a
		}
	}
	for key, p := range pairs {
		if p.rank != rank {
			return 0, 0, fmt.Errorf("%s: %s has rank %d, the config says %d", path, key, p.rank, rank)
		}
	}
	if rank <= 0 || alpha == nil {
		return 0, 0, fmt.Errorf("%s gives no rank and scale (PEFT: \"r\" and \"lora_alpha\"; mlx-lm: \"lora_parameters\" with \"rank\" and \"scale\")", path)
	}
	return rank, *alpha, nil
}

// base is what of the base model an adapter must fit.
type base struct {
	path           string
	arch           string
	shapes         map[string][]uint64
	heads, headsKV int
}

func readBase(path string) (*base, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	g, err := gguf.Parse(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("base model %s: %w", path, err)
	}
	b := &base{path: path, arch: g.String("general.architecture"), shapes: map[string][]uint64{}}
	if b.arch == "" {
		return nil, fmt.Errorf("base model %s names no architecture", path)
	}
	for _, t := range g.Tensors {
		b.shapes[t.Name] = t.Shape
	}
	heads, _ := g.Uint(b.arch + ".attention.head_count")
	kv, ok := g.Uint(b.arch + ".attention.head_count_kv")
	if !ok {
		kv = heads
	}
	b.heads, b.headsKV = int(heads), int(kv)
	return b, nil
}

// fit checks p against the base tensor it adapts and permutes its B rows
// where llama.cpp's converter permuted the weights' rows.
func (b *base) fit(name string, p *pair) error {
	shape, ok := b.shapes[name]
	if !ok {
		return fmt.Errorf("%w: %s adapts %s, which the %s base %s does not have (was it trained on another model?)", ErrMismatch, name, name, b.arch, b.path)
	}
	if len(shape) != 2 || int(shape[0]) != p.in || int(shape[1]) != p.out {
		return fmt.Errorf("%w: %s is %d→%d in the adapter but %v in the base %s (another model size?)", ErrMismatch, name, p.in, p.out, shape, b.path)
	}
	if slices.Contains(permuted, b.arch) && (p.proj == "attn_q" || p.proj == "attn_k") {
		heads := b.heads
		if p.proj == "attn_k" {
			heads = b.headsKV
		}
		if heads <= 0 || p.out%(2*heads) != 0 {
			return fmt.Errorf("%w: %s has %d rows, not whole heads of the base's %d", ErrMismatch, name, p.out, heads)
		}
		p.b = permuteRows(p.b, p.out, p.rank, heads)
	}
	return nil
}

// permuteRows reorders the rows of an [out][cols] matrix as llama.cpp's
// converter permutes a llama query or key weight: within each head, the
// two RoPE halves are interleaved.
func permuteRows(v []float32, out, cols, heads int) []float32 {
	hd := out / heads
	res := make([]float32, len(v))
	for h := range heads {
		for i := range hd / 2 {
			for half := range 2 {
				src := h*hd + half*hd/2 + i
				dst := h*hd + 2*i + half
				copy(res[dst*cols:(dst+1)*cols], v[src*cols:(src+1)*cols])
			}
		}
	}
	return res
}

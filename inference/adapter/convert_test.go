package adapter

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
)

// The base of every test: a tiny llama with grouped heads (its query and
// key rows are permuted on conversion) in F32.
var baseCfg = testmodel.Config{Name: "base", Seed: 7, Embd: 64, Layers: 2, Heads: 4, HeadsKV: 2, Ctx: 512}

// TestConvertedAdapterEqualsMergedWeights: an adapter saved by each tool,
// converted and applied by llama.cpp, gives the logits of the same change
// merged into the weights.
func TestConvertedAdapterEqualsMergedWeights(t *testing.T) {
	lib := llamatest.Library(t)
	dir := t.TempDir()
	basePath, err := testmodel.WriteLlama(dir, baseCfg)
	if err != nil {
		t.Fatal(err)
	}
	lora := testmodel.NewHFLoRA(baseCfg, 4, 8, 1)
	mergedPath, err := lora.Merged(dir, "merged")
	if err != nil {
		t.Fatal(err)
	}
	want := lastLogits(t, lib, mergedPath, "")
	baseLogits := lastLogits(t, lib, basePath, "")
	if d := maxAbsDiff(baseLogits, want); d < 0.1 {
		t.Fatalf("the change moves the logits by only %g: the test could not tell", d)
	}
	for _, c := range []struct {
		f    Format
		save func(string) error
	}{{PEFT, lora.SavePEFT}, {MLX, lora.SaveMLX}} {
		t.Run(string(c.f), func(t *testing.T) {
			saved := filepath.Join(dir, string(c.f))
			if err := c.save(saved); err != nil {
				t.Fatal(err)
			}
			out := saved + ".gguf"
			res, err := Convert(saved, basePath, out)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != c.f || res.Tensors != 14 || res.Rank != 4 || res.Alpha != 8 || res.Architecture != "llama" {
				t.Fatalf("result %+v", res)
			}
			if d := maxAbsDiff(lastLogits(t, lib, basePath, out), want); d > 1e-3 {
				t.Fatalf("adapter and merged weights differ by %g", d)
			}
		})
	}
}

// lastLogits decodes a fixed prompt and returns the logits after it, with
// the adapter at adapterPath active when it is not "".
func lastLogits(t *testing.T, lib *llama.Library, path, adapterPath string) []float32 {
	t.Helper()
	m, err := lib.LoadModel(path, llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := m.NewContext(llama.ContextParams{NCtx: 256, NBatch: 64, NUbatch: 64, NSeqMax: 1, NThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if adapterPath != "" {
		a, err := m.LoadAdapter(adapterPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetAdapters([]*llama.Adapter{a}, []float32{1}); err != nil {
			t.Fatal(err)
		}
	}
	prompt := []int32{1, 300, 301, 302, 400, 500, 600, 700}
	b := llama.NewBatch(len(prompt), 1)
	defer b.Free()
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), c.Logits(len(prompt)-1)...)
}

func maxAbsDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestConvertRefusesAnotherBase: an adapter trained on a wider or
// shallower model is refused, naming the tensor that does not fit.
func TestConvertRefusesAnotherBase(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "adapter")
	if err := testmodel.NewHFLoRA(baseCfg, 4, 8, 1).SavePEFT(saved); err != nil {
		t.Fatal(err)
	}
	for _, other := range []testmodel.Config{
		{Name: "wider", Seed: 7, Embd: 128, Layers: 2, Heads: 4, HeadsKV: 2, Ctx: 512},
		{Name: "shallower", Seed: 7, Embd: 64, Layers: 1, Heads: 4, HeadsKV: 2, Ctx: 512},
	} {
		path, err := testmodel.WriteLlama(dir, other)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Convert(saved, path, filepath.Join(dir, "out.gguf")); !errors.Is(err, ErrMismatch) {
			t.Errorf("%s base: %v, want ErrMismatch", other.Name, err)
		}
	}
}

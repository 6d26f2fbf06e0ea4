package inference

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
)

// Models of real architectures with real vocabularies, written once per
// test binary (the Gemma 4 vocabulary's 262k tokens make them tens of MB).
var real struct {
	once                          sync.Once
	dir                           string
	gemma4, lora, gemmaEmbed, bge string
	err                           error
}

func realModels(t *testing.T) (gemma4, lora, gemmaEmbed, bge string) {
	t.Helper()
	src := llamatest.Source(t)
	real.once.Do(func() {
		if real.dir, real.err = os.MkdirTemp("", "memd-real-arch"); real.err != nil {
			return
		}
		gemmaVocab := filepath.Join(src, "models", "ggml-vocab-gemma-4.gguf")
		cfg := testmodel.Gemma4Config{VocabPath: gemmaVocab, Seed: 3}
		if real.gemma4, real.err = testmodel.WriteGemma4(real.dir, cfg); real.err != nil {
			return
		}
		if real.lora, real.err = testmodel.WriteGemma4LoRA(real.dir, cfg, testmodel.LoRAConfig{Seed: 4, Rank: 8, Alpha: 512, Targets: []string{"attn_q", "attn_v", "attn_output", "ffn_up", "ffn_down"}}); real.err != nil {
			return
		}
		if real.gemmaEmbed, real.err = testmodel.WriteEmbeddingGemma(real.dir, testmodel.EmbedderConfig{VocabPath: gemmaVocab, Seed: 5}); real.err != nil {
			return
		}
		real.bge, real.err = testmodel.WriteBGE(real.dir, testmodel.EmbedderConfig{VocabPath: filepath.Join(src, "models", "ggml-vocab-bert-bge.gguf"), Seed: 6})
	})
	if real.err != nil {
		t.Fatal(real.err)
	}
	return real.gemma4, real.lora, real.gemmaEmbed, real.bge
}

// TestGemma4Generator: llama.cpp loads the generated model as gemma4, chat
// renders through its real template, the adapter changes the output only
// where it is active, and the prompt reads as Gemma 4's tokenizer made it.
func TestGemma4Generator(t *testing.T) {
	path, lora, _, _ := realModels(t)
	g := loadGenerator(t, GeneratorConfig{Path: path, Adapters: map[string]string{"memory-chunk": lora}, Slots: 2, ContextPerSlot: 512})
	if info := g.Info(); info.Architecture != "gemma4" || info.Vocab != 262144 {
		t.Fatalf("loaded as %s with %d tokens", info.Architecture, info.Vocab)
	}
	if g.chat.thinking == nil {
		t.Fatal("Gemma 4's thinking delimiters not found")
	}
	msgs := []Message{{Role: "system", Content: "Cut the note into chunks."}, {Role: "user", Content: "1: # Garden\n2: Water daily."}}
	toks, err := g.promptTokens(CompletionRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	bos := g.model.BOS()
	if toks[0] != bos || slices.Contains(toks[1:], bos) {
		t.Fatalf("prompt does not hold exactly one leading BOS: %v", toks[:4])
	}
	complete := func(adapter string) []int32 {
		c, err := g.Complete(context.Background(), CompletionRequest{Adapter: adapter, Messages: msgs, MaxTokens: 8})
		if err != nil {
			t.Fatal(err)
		}
		if c.Generated == 0 {
			t.Fatalf("adapter %q: nothing generated (%s)", adapter, c.Finish)
		}
		return c.Tokens
	}
	base, again, adapted := complete(""), complete(""), complete("memory-chunk")
	if !slices.Equal(base, again) {
		t.Fatalf("greedy output changed between runs: %v, %v", base, again)
	}
	if slices.Equal(base, adapted) {
		t.Fatalf("the adapter changed nothing: %v", base)
	}
}

// TestRealEmbedders: EmbeddingGemma (gemma-embedding) over the Gemma
// vocabulary and BERT over the real BGE WordPiece vocabulary embed through
// memd: unit vectors of the model's width, distinct texts apart, and an
// input's vector the same alone as beside others of other lengths.
func TestRealEmbedders(t *testing.T) {
	_, _, gemmaEmbed, bge := realModels(t)
	texts := []string{"Water the tomatoes every morning.", "memd", "A much longer note about the garden, the weather in spring and the seeds to buy before April."}
	for _, tc := range []struct{ name, path, arch string }{{"embeddinggemma", gemmaEmbed, "gemma-embedding"}, {"bge", bge, "bert"}} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := LoadEmbedder(testLibrary(t), EmbedderConfig{Path: tc.path, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if e.Info().Architecture != tc.arch || e.Dim() != 64 {
				t.Fatalf("loaded as %s, dim %d", e.Info().Architecture, e.Dim())
			}
			together, err := e.Embed(context.Background(), texts, Interactive)
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range texts {
				alone, err := e.Embed(context.Background(), []string{text}, Interactive)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(alone[0].Vector, together[i].Vector); d > 1e-4 {
					t.Errorf("%q: alone and in a batch differ by %g", text, d)
				}
				if n := norm(together[i].Vector); math.Abs(n-1) > 1e-4 {
					t.Errorf("%q: norm %g", text, n)
				}
			}
			if maxDiff(together[0].Vector, together[1].Vector) < 1e-3 {
				t.Error("two different texts got the same vector")
			}
		})
	}
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

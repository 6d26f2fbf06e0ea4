package testmodel

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/memd-dev/memd/inference/gguf"
)

func TestModelsPassCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Seed: 1, ChatTemplate: true}
	llama, err := WriteLlama(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f16, err := WriteLlama(dir, Config{Name: "f16", F16: true, Vocab: 4000, Embd: 32, Layers: 1, Heads: 2, HeadsKV: 1})
	if err != nil {
		t.Fatal(err)
	}
	lora, err := WriteLoRA(dir, cfg, LoRAConfig{Output: true})
	if err != nil {
		t.Fatal(err)
	}
	table := make([]int32, FirstWordToken+10)
	bigram, err := WriteBigram(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	blora, err := WriteBigramLoRA(dir, table, map[int32]int32{FirstWordToken: 3})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := WriteEmbedder(dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, typ string
		tensors   int
	}{{llama, "model", 3 + 2*9}, {f16, "model", 3 + 9}, {lora, "adapter", 2*3*2 + 2}, {bigram, "model", 3 + 9}, {blora, "adapter", 2}, {emb.Path, "model", 3 + 9}} {
		info, err := gguf.Check(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Architecture != "llama" || info.Type != c.typ || info.TensorCount != c.tensors {
			t.Errorf("%s: arch %q type %q tensors %d, want %d", c.path, info.Architecture, info.Type, info.TensorCount, c.tensors)
		}
	}
	info, _ := gguf.Check(f16)
	for _, ti := range info.File.Tensors {
		if want := map[bool]gguf.TensorType{true: gguf.TensorF16, false: gguf.TensorF32}[len(ti.Shape) == 2]; ti.Type != want {
			t.Errorf("%s is %s", ti.Name, ti.Type)
		}
	}
	if toks, _ := info.File.Get("tokenizer.ggml.tokens"); len(toks.([]string)) != 4000 {
		t.Errorf("vocab padded to %d", len(toks.([]string)))
	}
}

func TestDeterministic(t *testing.T) {
	fp := func(cfg Config) string {
		path, err := WriteLlama(t.TempDir(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := gguf.Fingerprint(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c := fp(Config{Seed: 5}), fp(Config{Seed: 5}), fp(Config{Seed: 6})
	if a != b || a == c {
		t.Errorf("seed 5 twice: %s %s; seed 6: %s", a, b, c)
	}
}

func TestVocab(t *testing.T) {
	v := spmVocab(0)
	seen := map[string]bool{}
	for i, tok := range v.tokens {
		if seen[tok] {
			t.Fatalf("token %q twice", tok)
		}
		seen[tok] = true
		if v.types[i] == typeByte && tok != "<0x"+string("0123456789ABCDEF"[(i-5)>>4])+string("0123456789ABCDEF"[(i-5)&15])+">" {
			t.Fatalf("byte token %d is %q", i, tok)
		}
	}
	if len(v.tokens) < 2000 || !seen[spmSpace+"the"] || !seen[spmSpace+"The"] || !seen["e"] {
		t.Errorf("%d tokens", len(v.tokens))
	}
	if v.tokens[TokenStartOfTurn] != "<start_of_turn>" || v.types[TokenEndOfTurn] != typeControl {
		t.Error("turn tokens")
	}
	if n := len(spmVocab(100).tokens); n != int(firstByteToken)+256 {
		t.Errorf("small vocab keeps %d tokens", n)
	}
}

func TestBigramRejects(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteBigram(dir, make([]int32, 10)); err == nil {
		t.Error("vocabulary without byte tokens accepted")
	}
	table := make([]int32, FirstWordToken+5)
	table[3] = 9999
	if _, err := WriteBigram(dir, table); err == nil {
		t.Error("table entry outside the vocabulary accepted")
	}
	table[3] = 0
	if _, err := WriteBigramLoRA(dir, table, map[int32]int32{4: 0}); err == nil {
		t.Error("a change to the same token accepted")
	}
}

// TestEmbedderReference checks the direct computation on cases with known
// answers: a token repeated gives the embedding of the token alone (every
// position attends to equal values), and different tokens differ.
func TestEmbedderReference(t *testing.T) {
	e, err := WriteEmbedder(t.TempDir(), Config{Embd: 16, Heads: 2})
	if err != nil {
		t.Fatal(err)
	}
	one := e.Embed([]int32{400})
	two := e.Embed([]int32{400, 400})
	// Same token twice: the second position averages two equal values, so
	// both positions produce the same output and the mean equals one's.
	for i := range one {
		if math.Abs(float64(one[i]-two[i])) > 1e-6 {
			t.Fatalf("dim %d: %v vs %v", i, one[i], two[i])
		}
	}
	if slices.Equal(one, e.Embed([]int32{401})) {
		t.Error("different tokens give the same embedding")
	}
	if _, err := os.Stat(e.Path); err != nil {
		t.Error(err)
	}
}

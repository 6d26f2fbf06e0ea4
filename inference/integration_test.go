package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
)

// These tests run the real llama.cpp library on generated models. They
// need MEMD_LLAMA_LIB, the folder holding libllama.

func testLibrary(t testing.TB) *llama.Library { return llamatest.Library(t) }

// tinyConfig is a random-weight model small enough to decode a token in
// well under a millisecond on one thread.
func tinyConfig() testmodel.Config {
	return testmodel.Config{Seed: 7, Embd: 64, Layers: 2, Heads: 4, HeadsKV: 2, Ctx: 512}
}

var (
	tinyOnce sync.Once
	tinyDir  string
	tinyPath string
	tinyErr  error
)

// tinyModel writes the tiny model once per test binary.
func tinyModel(t testing.TB) string {
	t.Helper()
	tinyOnce.Do(func() {
		tinyDir, tinyErr = os.MkdirTemp("", "memd-inference-test")
		if tinyErr == nil {
			tinyPath, tinyErr = testmodel.WriteLlama(tinyDir, tinyConfig())
		}
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{tinyDir, real.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func loadGenerator(t *testing.T, cfg GeneratorConfig) *Generator {
	t.Helper()
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	g, err := LoadGenerator(testLibrary(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

var testPrompts = []string{
	"the quick brown fox",
	"a",
	"notes about the garden and the weather in spring, with a list of seeds to buy",
	"memory",
	"once upon a time there was a daemon that remembered everything you wrote",
	"hello world",
	"one two three four five six seven eight nine ten eleven twelve",
	"why",
}

// soloReference runs each prompt alone, one after another, in a one-slot
// generator.
func soloReference(t *testing.T, path string, prompts [][]int32, n int) [][]int32 {
	t.Helper()
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 1, ContextPerSlot: 256, BatchSize: 512})
	out := make([][]int32, len(prompts))
	for i, p := range prompts {
		c, err := g.Complete(context.Background(), CompletionRequest{Tokens: p, MaxTokens: n})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c.Tokens
	}
	return out
}

// topTwoGap decodes prompt+prefix alone in a fresh context and returns the
// gap between the two largest logits of the next token.
func topTwoGap(t *testing.T, path string, toks []int32) float64 {
	t.Helper()
	m, err := testLibrary(t).LoadModel(path, llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := m.NewContext(llama.ContextParams{NCtx: 512, NBatch: 512, NUbatch: 512, NSeqMax: 1, NThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := llama.NewBatch(len(toks), 1)
	defer b.Free()
	for i, tok := range toks {
		b.Add(tok, int32(i), 0, i == len(toks)-1)
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	l := c.Logits(len(toks) - 1)
	a, bb := math.Inf(-1), math.Inf(-1)
	for _, x := range l {
		switch v := float64(x); {
		case v > a:
			a, bb = v, a
		case v > bb:
			bb = v
		}
	}
	return a - bb
}

// compareGreedy checks batched output against solo output token for
// token, allowing a divergence only where the solo run's top two logits
// were within 1e-3, and logging it.
// nearTie is the gap between the two best logits under which a batched
// and a solo decode may pick differently: llama.cpp sums a row's products
// in another order when the batch holds other rows, which moves a logit of
// the test model by a few thousandths (a flip at a gap of 0.0016 was seen
// under CI's load). A batching bug (a row reading another's KV cells or
// positions) changes logits by far more than this.
const nearTie = 5e-3

func compareGreedy(t *testing.T, path string, prompt, solo, batched []int32) {
	t.Helper()
	for k := range min(len(solo), len(batched)) {
		if solo[k] == batched[k] {
			continue
		}
		ctx := append(slices.Clone(prompt), solo[:k]...)
		gap := topTwoGap(t, path, ctx)
		if gap > nearTie {
			t.Errorf("prompt %v: token %d is %d batched, %d alone; top-2 gap %.3g is no tie", prompt, k, batched[k], solo[k], gap)
			return
		}
		t.Logf("prompt %v: token %d differs (%d batched, %d alone) at a near tie, gap %.3g", prompt, k, batched[k], solo[k], gap)
		return
	}
	if len(solo) != len(batched) {
		t.Errorf("prompt %v: %d tokens batched, %d alone", prompt, len(batched), len(solo))
	}
}

func tokenizeAll(t *testing.T, g *Generator, texts []string) [][]int32 {
	t.Helper()
	out := make([][]int32, len(texts))
	for i, s := range texts {
		toks, err := g.Tokenize(s, true, false)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = toks
	}
	return out
}

func TestGeneratorBatchedGreedyEqualsSolo(t *testing.T) {
	path := tinyModel(t)
	const n = 24
	// A small batch budget makes long prompts prefill in several pieces
	// beside decoding rows.
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 8, ContextPerSlot: 256, BatchSize: 16})
	prompts := tokenizeAll(t, g, testPrompts)
	solo := soloReference(t, path, prompts, n)
	batched := make([][]int32, len(prompts))
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Go(func() {
			c, err := g.Complete(context.Background(), CompletionRequest{Tokens: p, MaxTokens: n})
			if err != nil {
				t.Error(err)
				return
			}
			batched[i] = c.Tokens
		})
	}
	wg.Wait()
	for i := range prompts {
		if len(solo[i]) < n/2 {
			t.Fatalf("prompt %d: only %d tokens alone; the comparison would prove little", i, len(solo[i]))
		}
		compareGreedy(t, path, prompts[i], solo[i], batched[i])
	}
	st, _ := g.Scheduler("")
	if s := st.Stats(); s.Tokens <= s.Steps {
		t.Fatalf("no batching happened: %+v", s)
	}
}

// bigram is a deterministic model: after word i comes word i+1 (mod 20);
// its adapter changes the word after word 0 to word 10.
type bigram struct {
	model, lora string
	table       []int32
	changed     map[int32]int32
}

func writeBigram(t *testing.T) bigram {
	dir := t.TempDir()
	w := testmodel.FirstWordToken
	const words = 20
	table := make([]int32, w+words)
	for tok := range table {
		table[tok] = w + (int32(tok)-w+1+words)%words
		if int32(tok) < w {
			table[tok] = w
		}
	}
	changed := map[int32]int32{w: w + 10}
	model, err := testmodel.WriteBigram(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	lora, err := testmodel.WriteBigramLoRA(dir, table, changed)
	if err != nil {
		t.Fatal(err)
	}
	return bigram{model, lora, table, changed}
}

// continuation is what greedy decoding gives after tok under table with
// changes applied.
func (b bigram) continuation(tok int32, n int, adapted bool) []int32 {
	var out []int32
	for range n {
		next := b.table[tok]
		if c, ok := b.changed[tok]; ok && adapted {
			next = c
		}
		out = append(out, next)
		tok = next
	}
	return out
}

func TestGeneratorAdapterAndBaseInOneRun(t *testing.T) {
	b := writeBigram(t)
	g := loadGenerator(t, GeneratorConfig{
		Path: b.model, Adapters: map[string]string{"memory-chunk": b.lora},
		Slots: 4, ContextPerSlot: 64, BatchSize: 32,
	})
	w := testmodel.FirstWordToken
	const n = 6
	var wg sync.WaitGroup
	for i := range 8 {
		adapter := ""
		if i%2 == 1 {
			adapter = "memory-chunk"
		}
		start := w + int32(i%3) // words 0, 1, 2: only word 0 is changed
		wg.Go(func() {
			c, err := g.Complete(context.Background(), CompletionRequest{
				Adapter: adapter, Tokens: []int32{testmodel.TokenBOS, start}, MaxTokens: n,
			})
			if err != nil {
				t.Error(err)
				return
			}
			want := b.continuation(start, n, adapter != "")
			if !slices.Equal(c.Tokens, want) {
				t.Errorf("adapter %q after %d: %v, want %v", adapter, start, c.Tokens, want)
			}
		})
	}
	wg.Wait()
	if _, err := g.Complete(context.Background(), CompletionRequest{Adapter: "nope", Tokens: []int32{1}}); !errors.Is(err, ErrUnknownAdapter) {
		t.Fatalf("unknown adapter: %v", err)
	}
}

// TestGeneratorAdapterScale checks LoRA scaling. The bigram adapter moves
// logit sqrt(e)*(1-s) from the base word to sqrt(e)*2s at the changed one,
// so the adapter's word wins from s = 1/3 up, the base word below, and
// s = 0 is the base model.
func TestGeneratorAdapterScale(t *testing.T) {
	b := writeBigram(t)
	adapters := map[string]string{}
	scales := map[string]float32{}
	for _, s := range []float32{0, 0.25, 0.5, 1} {
		name := fmt.Sprintf("s%.2f", s)
		adapters[name], scales[name] = b.lora, s
	}
	g := loadGenerator(t, GeneratorConfig{Path: b.model, Adapters: adapters, Scales: scales, Slots: 1, ContextPerSlot: 32, BatchSize: 32})
	w := testmodel.FirstWordToken
	for name, s := range scales {
		c, err := g.Complete(context.Background(), CompletionRequest{Adapter: name, Tokens: []int32{testmodel.TokenBOS, w}, MaxTokens: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := b.continuation(w, 3, s > 1.0/3)
		if !slices.Equal(c.Tokens, want) {
			t.Errorf("scale %.2f: %v, want %v", s, c.Tokens, want)
		}
	}
}

func TestGeneratorCancelMidDecode(t *testing.T) {
	path := tinyModel(t)
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 2, ContextPerSlot: 512, BatchSize: 64})
	ctx, cancel := context.WithCancel(context.Background())
	pieces := 0
	c, err := g.Complete(ctx, CompletionRequest{Prompt: "tell me everything", OnToken: func(string) error {
		if pieces++; pieces == 3 {
			cancel()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) || c.Finish != FinishCancelled {
		t.Fatalf("got %v, finish %s", err, c.Finish)
	}
	if c.Generated < 3 || c.Generated > 400 {
		t.Fatalf("generated %d tokens before the cancel took", c.Generated)
	}
	s, _ := g.Scheduler("")
	waitFor(t, "slot freed", func() bool { return s.Stats().Active == 0 })
	// The slot is clean: the same prompt alone gives the solo result.
	p, _ := g.Tokenize("hello world", true, false)
	want := soloReference(t, path, [][]int32{p}, 10)[0]
	got, err := g.Complete(context.Background(), CompletionRequest{Tokens: p, MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	compareGreedy(t, path, p, want, got.Tokens)
}

// TestGenerator32Concurrent sends 32 requests (both priorities, sampled
// and greedy, some cancelled) through 4 slots. Run it with -race.
func TestGenerator32Concurrent(t *testing.T) {
	path := tinyModel(t)
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 4, ContextPerSlot: 128, BatchSize: 32})
	prompts := tokenizeAll(t, g, testPrompts)
	solo := soloReference(t, path, prompts, 12)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			p := prompts[i%len(prompts)]
			req := CompletionRequest{Tokens: p, MaxTokens: 12, Priority: Priority(i % 2)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			switch i % 4 {
			case 1:
				req.Sampling = Sampling{Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05, RepeatPenalty: 1.1, Seed: uint64(i)}
			case 3:
				req.OnToken = func(string) error { cancel(); return nil }
			}
			c, err := g.Complete(ctx, req)
			switch i % 4 {
			case 1:
				if err != nil || c.Generated == 0 {
					t.Errorf("sampled request %d: %v, %d tokens", i, err, c.Generated)
				}
			case 3:
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("cancelled request %d: %v", i, err)
				}
			default:
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					return
				}
				compareGreedy(t, path, p, solo[i%len(prompts)], c.Tokens)
			}
		})
	}
	wg.Wait()
}

func TestGeneratorStreamsWhatItReturns(t *testing.T) {
	g := loadGenerator(t, GeneratorConfig{Path: tinyModel(t), Slots: 1, ContextPerSlot: 128})
	var b strings.Builder
	c, err := g.Complete(context.Background(), CompletionRequest{Prompt: "hello", MaxTokens: 20,
		OnToken: func(p string) error { b.WriteString(p); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != c.Text || c.Generated != 20 || c.Finish != FinishLength {
		t.Fatalf("streamed %q, returned %q, %d tokens, %s", b.String(), c.Text, c.Generated, c.Finish)
	}
	if c.Timings.Prefill <= 0 || c.Timings.Decode <= 0 {
		t.Fatalf("timings %+v", c.Timings)
	}
}

func TestGeneratorInfoAndCloseErrors(t *testing.T) {
	path := tinyModel(t)
	g, err := LoadGenerator(testLibrary(t), GeneratorConfig{Path: path, Threads: 1, ContextPerSlot: 64})
	if err != nil {
		t.Fatal(err)
	}
	info := g.Info()
	if info.Path != path || !strings.HasPrefix(info.Fingerprint, "gguf-fp1:") || info.SizeBytes == 0 || info.Architecture != "llama" || info.Backend == "" {
		t.Fatalf("info %+v", info)
	}
	g.Close()
	if _, err := g.Complete(context.Background(), CompletionRequest{Prompt: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	g.Close()

	bad := t.TempDir() + "/bad.gguf"
	os.WriteFile(bad, []byte("GGUF not really"), 0o600)
	if _, err := LoadGenerator(testLibrary(t), GeneratorConfig{Path: bad}); err == nil {
		t.Fatal("loaded a corrupt file")
	}
	_, err = LoadGenerator(testLibrary(t), GeneratorConfig{Path: t.TempDir() + "/missing.gguf"})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "check the path") {
		t.Fatalf("missing file: %v; want the check's advice", err)
	}
}

func TestChatTemplateGemmaTurns(t *testing.T) {
	cfg := tinyConfig()
	cfg.Name, cfg.ChatTemplate = "gemma-chat", true
	path, err := testmodel.WriteLlama(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 1, ContextPerSlot: 128})
	text, err := g.ChatPrompt([]Message{{Role: "user", Content: "hi there"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<start_of_turn>user\nhi there<end_of_turn>\n<start_of_turn>model\n"; strings.TrimPrefix(text, "<s>") != want {
		t.Fatalf("rendered %q, want %q", text, want)
	}
	multi, err := g.ChatPrompt([]Message{
		{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"},
		{Role: "assistant", Content: "hello"}, {Role: "user", Content: "more"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<start_of_turn>user\nbe brief\n\nhi<end_of_turn>\n<start_of_turn>model\nhello<end_of_turn>\n<start_of_turn>user\nmore<end_of_turn>\n<start_of_turn>model\n"; strings.TrimPrefix(multi, "<s>") != want {
		t.Fatalf("rendered %q, want %q", multi, want)
	}

	// Token for token: the turn markers are single special tokens, the
	// text between them tokenizes as it would alone, one BOS leads.
	frag := func(s string) []int32 {
		toks, err := g.Tokenize(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		return toks
	}
	want := []int32{testmodel.TokenBOS, testmodel.TokenStartOfTurn}
	want = append(want, frag("user\nhi there")...)
	want = append(want, testmodel.TokenEndOfTurn)
	want = append(want, frag("\n")...)
	want = append(want, testmodel.TokenStartOfTurn)
	want = append(want, frag("model\n")...)
	got, err := g.promptTokens(CompletionRequest{Messages: []Message{{Role: "user", Content: "hi there"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("chat prompt tokens\n got %v\nwant %v", got, want)
	}
	c, err := g.Complete(context.Background(), CompletionRequest{Messages: []Message{{Role: "user", Content: "hi"}}, MaxTokens: 4})
	if err != nil || c.PromptTokens != len(frag("user\nhi"))+len(frag("\n"))+len(frag("model\n"))+4 {
		t.Fatalf("complete from messages: %v, %d prompt tokens", err, c.PromptTokens)
	}
}

func TestEmbedderMatchesDirect(t *testing.T) {
	ref, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := LoadEmbedder(testLibrary(t), EmbedderConfig{Path: ref.Path, Threads: 1, BatchSize: 256, Sequences: 8, MaxTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Dim() != ref.Cfg.Embd {
		t.Fatalf("dim %d, want %d", e.Dim(), ref.Cfg.Embd)
	}
	texts := []string{
		"a",
		"the garden in spring",
		"notes on a long walk by the river, with the names of twelve birds and three trees",
		"memory",
		"one two three four",
	}
	got, err := e.Embed(context.Background(), texts, Interactive)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		toks, err := e.Tokenize(s)
		if err != nil {
			t.Fatal(err)
		}
		cut := max(0, len(toks)-12)
		toks = toks[:len(toks)-cut]
		if got[i].Tokens != len(toks) || got[i].Truncated != cut {
			t.Errorf("input %d: %d tokens, %d cut; want %d, %d", i, got[i].Tokens, got[i].Truncated, len(toks), cut)
		}
		want := normalize(ref.Embed(toks))
		var dot, worst float64
		for k := range want {
			dot += float64(want[k]) * float64(got[i].Vector[k])
			worst = max(worst, math.Abs(float64(want[k]-got[i].Vector[k])))
		}
		if worst > 1e-4 {
			t.Errorf("input %d: largest difference from the direct computation %.2g (cosine %.6f)", i, worst, dot)
		}
	}
}

func TestEmbedderConcurrentPriorities(t *testing.T) {
	ref, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := LoadEmbedder(testLibrary(t), EmbedderConfig{Path: ref.Path, Threads: 1, BatchSize: 128, Sequences: 4})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := e.Embed(context.Background(), []string{"the same words every time"}, Background)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			texts := []string{"the same words every time", strings.Repeat("filler ", i+1)}
			got, err := e.Embed(context.Background(), texts, Priority(i%2))
			if err != nil {
				t.Error(err)
				return
			}
			for k := range got[0].Vector {
				if math.Abs(float64(got[0].Vector[k]-alone[0].Vector[k])) > 1e-5 {
					t.Errorf("call %d: vector differs from the one embedded alone", i)
					return
				}
			}
		})
	}
	wg.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"x"}, Interactive); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	e.Close()
	if _, err := e.Embed(context.Background(), []string{"x"}, Interactive); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

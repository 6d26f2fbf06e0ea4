package llama

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/memd-dev/memd/inference/testmodel"
)

// follow returns n steps of the bigram table after tok.
func follow(table []int32, tok int32, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		tok = table[tok]
		out[i] = tok
	}
	return out
}

func TestBigramGreedy(t *testing.T) {
	l := openLib(t)
	f := models(t)
	m := loadModel(t, l, f.bigram)
	c := newContext(t, m, ContextParams{NCtx: 1024, NBatch: 64, NSeqMax: 4})
	if c.NCtx() != 1024 || c.NSeqMax() != 4 || c.NBatch() != 64 {
		t.Errorf("n_ctx %d n_seq_max %d n_batch %d", c.NCtx(), c.NSeqMax(), c.NBatch())
	}
	for _, n := range []struct{ ctx, seqs, want int }{{300, 1, 512}, {256, 4, 1024}, {1024, 4, 1024}} {
		c := newContext(t, m, ContextParams{NCtx: n.ctx, NSeqMax: n.seqs})
		if c.NCtx() != n.want {
			t.Errorf("n_ctx %d with %d sequences gave %d, want %d", n.ctx, n.seqs, c.NCtx(), n.want)
		}
	}
	for _, start := range []int32{testmodel.FirstWordToken, testmodel.FirstWordToken + 13, 300} {
		c.MemoryClear()
		prompt := []int32{m.BOS(), testmodel.FirstWordToken + 5, start}
		got := greedy(t, c, prompt, 12)
		if want := follow(f.table, start, 12); !slices.Equal(got, want) {
			t.Errorf("from %d: got %v, want %v", start, got, want)
		}
	}
	logits := c.Logits(-1)
	if len(logits) != m.NVocab() {
		t.Fatalf("logits row has %d entries", len(logits))
	}
	want := testmodel.BigramLogit(len(f.table))
	if top := logits[argmax(logits)]; math.Abs(float64(top-want)) > 1e-3 {
		t.Errorf("top logit %v, want %v", top, want)
	}

	// Four sequences in one batch, each at its own positions, continue as
	// they would alone.
	c.MemoryClear()
	b := NewBatch(16, 1)
	defer b.Free()
	starts := []int32{testmodel.FirstWordToken + 1, testmodel.FirstWordToken + 2, testmodel.FirstWordToken + 30, 270}
	rows := make([]int, len(starts))
	for s, tok := range starts {
		for p := range s + 1 { // sequences of different lengths
			if p == s {
				rows[s] = b.Len()
			}
			b.Add(tok, int32(p), int32(s), p == s)
		}
	}
	cur := slices.Clone(starts)
	pos := []int32{1, 2, 3, 4}
	for step := range 6 {
		if err := c.Decode(b); err != nil {
			t.Fatal(err)
		}
		for s := range cur {
			got := argmax(c.Logits(rows[s]))
			if got != f.table[cur[s]] {
				t.Fatalf("step %d seq %d: got %d want %d", step, s, got, f.table[cur[s]])
			}
			cur[s] = got
		}
		b.Clear()
		for s, tok := range cur {
			rows[s] = b.Len()
			b.Add(tok, pos[s], int32(s), true)
			pos[s]++
		}
	}
	if !c.SeqRemove(2, -1, -1) || c.SeqPosMax(2) != -1 || c.SeqPosMax(1) != pos[1]-2 {
		t.Errorf("after SeqRemove: pos max seq2 %d seq1 %d (want %d)", c.SeqPosMax(2), c.SeqPosMax(1), pos[1]-2)
	}
}

func TestDecodeErrors(t *testing.T) {
	l := openLib(t)
	m := loadModel(t, l, models(t).bigram)
	c := newContext(t, m, ContextParams{NCtx: 256, NBatch: 512, NUbatch: 512})
	b := NewBatch(300, 1)
	defer b.Free()
	b.Add(int32(m.NVocab()+5), 0, 0, true)
	if err := c.Decode(b); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("bad token: %v", err)
	}
	b.Clear()
	b.Add(1, 0, 7, true) // sequence id beyond n_seq_max
	if err := c.Decode(b); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("bad sequence: %v", err)
	}
	b.Clear()
	if c.NBatch() != 256 {
		t.Errorf("n_batch %d, want it capped at n_ctx 256", c.NBatch())
	}
	for p := range 300 {
		b.Add(testmodel.FirstWordToken, int32(p), 0, false)
	}
	if err := c.Decode(b); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("batch over n_batch: %v", err)
	}
	b.Clear()
	if err := c.Decode(b); !errors.Is(err, ErrInvalidBatch) {
		t.Errorf("empty batch: %v", err)
	}
	for p := range 200 {
		b.Add(testmodel.FirstWordToken, int32(p), 0, p == 199)
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	b.Clear()
	for p := range 100 {
		b.Add(testmodel.FirstWordToken, int32(200+p), 0, false)
	}
	if err := c.Decode(b); !errors.Is(err, ErrNoKVSlot) {
		t.Errorf("over-full cache: %v", err)
	}
	if c.Logits(5) != nil {
		t.Error("logits of a row without output")
	}
}

func TestBigramLoRA(t *testing.T) {
	l := openLib(t)
	f := models(t)
	m := loadModel(t, l, f.bigram)
	a, err := m.LoadAdapter(f.bigLoRA)
	if err != nil {
		t.Fatal(err)
	}
	base := newContext(t, m, ContextParams{NCtx: 256})
	chunk := newContext(t, m, ContextParams{NCtx: 256})
	if err := chunk.SetAdapters([]*Adapter{a}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	changed := make([]int32, len(f.table))
	copy(changed, f.table)
	for from, to := range f.changes {
		changed[from] = to
	}
	start := testmodel.FirstWordToken // base: 0 7 14 21 28; adapter: 0 7 3 10 17 ...
	prompt := []int32{m.BOS(), start}
	gotBase := greedy(t, base, prompt, 12)
	gotChunk := greedy(t, chunk, prompt, 12)
	if want := follow(f.table, start, 12); !slices.Equal(gotBase, want) {
		t.Errorf("base context: %v, want %v", gotBase, want)
	}
	if want := follow(changed, start, 12); !slices.Equal(gotChunk, want) {
		t.Errorf("adapter context: %v, want %v", gotChunk, want)
	}
	if slices.Equal(gotBase, gotChunk) {
		t.Fatal("adapter changed nothing: pick a start that reaches a changed token")
	}

	// Logits after a changed token at scales 0, 0.5, 1, then cleared.
	from := testmodel.FirstWordToken + 7
	prompt2 := []int32{m.BOS(), from}
	logitsAt := func(scale float32, set bool) []float32 {
		var err error
		if set {
			err = chunk.SetAdapters([]*Adapter{a}, []float32{scale})
		} else {
			err = chunk.SetAdapters(nil, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		return prefillLogits(t, chunk, prompt2)
	}
	full, half, zero := logitsAt(1, true), logitsAt(0.5, true), logitsAt(0, true)
	cleared := logitsAt(0, false)
	baseCtxLogits := prefillLogits(t, base, prompt2)
	L := testmodel.BigramLogit(len(f.table))
	to, old := f.changes[from], f.table[from]
	near := func(got, want float32) bool { return math.Abs(float64(got-want)) < 1e-3*float64(L) }
	if !near(full[to], 2*L) || !near(full[old], 0) || !near(half[to], L) || !near(half[old], L/2) {
		t.Errorf("scale 1: new %v old %v; scale 0.5: new %v old %v (L = %v)", full[to], full[old], half[to], half[old], L)
	}
	for i := range half {
		if !near(half[i], (zero[i]+full[i])/2) {
			t.Fatalf("logit %d at scale 0.5 is %v, not halfway between %v and %v", i, half[i], zero[i], full[i])
		}
	}
	if !slices.Equal(cleared, baseCtxLogits) {
		t.Errorf("cleared adapters do not give the base logits exactly")
	}
	a.Close()
	if err := chunk.SetAdapters([]*Adapter{a}, []float32{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("closed adapter: %v", err)
	}
}

func TestRandomLoRA(t *testing.T) {
	l := openLib(t)
	f := models(t)
	m := loadModel(t, l, f.llama)
	a, err := m.LoadAdapter(f.lora)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c := newContext(t, m, ContextParams{NCtx: 256})
	prompt, _ := m.Tokenize("the memory of water", true, false)
	run := func() []float32 { return prefillLogits(t, c, prompt) }
	before := run()
	if err := c.SetAdapters([]*Adapter{a}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	with := run()
	if err := c.SetAdapters(nil, nil); err != nil {
		t.Fatal(err)
	}
	after := run()
	if slices.Equal(before, with) {
		t.Error("adapter did not change the logits")
	}
	if !slices.Equal(before, after) {
		t.Error("clearing the adapter did not restore the logits exactly")
	}
	if _, err := m.LoadAdapter(f.bigLoRA); !errors.Is(err, ErrAdapter) {
		t.Errorf("adapter for another model shape: %v", err)
	}
}

func TestEmbeddings(t *testing.T) {
	l := openLib(t)
	f := models(t)
	m := loadModel(t, l, f.embedder.Path)
	if m.PoolingType() != PoolingMean {
		t.Fatalf("pooling %d", m.PoolingType())
	}
	c := newContext(t, m, ContextParams{NCtx: 512, NBatch: 256, NUbatch: 256, NSeqMax: 4, Embeddings: true, Pooling: PoolingUnspecified, KVUnified: true})
	if c.PoolingType() != PoolingMean {
		t.Fatalf("context pooling %d", c.PoolingType())
	}
	texts := []string{"a note about water", "the river runs to the sea in the morning light", "tag", "memory daemon local private search index chunk model"}
	b := NewBatch(256, 1)
	defer b.Free()
	var seqs [][]int32
	for s, text := range texts {
		toks, err := m.Tokenize(text, true, false)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, toks)
		for i, tok := range toks {
			b.Add(tok, int32(i), int32(s), true)
		}
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	for s, toks := range seqs {
		got := c.EmbeddingsSeq(int32(s))
		want := f.embedder.Embed(toks)
		if len(got) != len(want) {
			t.Fatalf("seq %d: %d dims, want %d", s, len(got), len(want))
		}
		var diff, norm float64
		for i := range got {
			diff = max(diff, math.Abs(float64(got[i]-want[i])))
			norm = max(norm, math.Abs(float64(want[i])))
		}
		t.Logf("seq %d (%d tokens): max diff %.2g of max %.3g", s, len(toks), diff, norm)
		if diff > 2e-3*norm {
			t.Errorf("seq %d: llama.cpp and the direct computation differ by %.3g (max |x| %.3g)", s, diff, norm)
		}
	}
}

func TestAbort(t *testing.T) {
	l := openLib(t)
	m := loadModel(t, l, models(t).llama)
	c := newContext(t, m, ContextParams{NCtx: 512, NBatch: 512, NUbatch: 64})
	b := NewBatch(512, 1)
	defer b.Free()
	for p := range 400 {
		b.Add(300, int32(p), 0, p == 399)
	}
	var calls atomic.Int32
	c.SetAbort(func() bool { return calls.Add(1) > 0 })
	if err := c.Decode(b); !errors.Is(err, ErrAborted) {
		t.Fatalf("decode with abort: %v", err)
	}
	if calls.Load() == 0 {
		t.Fatal("abort callback never called")
	}
	// An abort after a few checks, mid-batch, still fails the decode, and
	// the batch does not stand in the cache whole (llama.cpp v0.5.0 keeps
	// none of it).
	c.MemoryClear()
	calls.Store(0)
	var seen atomic.Int32
	c.SetAbort(func() bool { return seen.Add(1) > 3 && calls.Add(1) > 0 })
	if err := c.Decode(b); !errors.Is(err, ErrAborted) {
		t.Fatalf("decode with a late abort: %v", err)
	}
	if seen.Load() <= 3 || c.SeqPosMax(0) >= 399 {
		t.Fatalf("late abort after %d checks; the cache holds positions up to %d of 399", seen.Load(), c.SeqPosMax(0))
	}
	t.Logf("late abort after %d checks; the cache holds positions up to %d", seen.Load(), c.SeqPosMax(0))
	c.SetAbort(nil)
	c.MemoryClear()
	if err := c.Decode(b); err != nil {
		t.Fatalf("decode after removing the abort: %v", err)
	}
	// Another context's callback is its own.
	other := newContext(t, m, ContextParams{NCtx: 256})
	other.SetAbort(func() bool { return true })
	c.MemoryClear()
	if err := c.Decode(b); err != nil {
		t.Fatalf("first context aborted by the second's callback: %v", err)
	}
}

func TestSampler(t *testing.T) {
	l := openLib(t)
	m := loadModel(t, l, models(t).llama)
	c := newContext(t, m, ContextParams{NCtx: 256})
	prompt, _ := m.Tokenize("the water", true, false)
	b := NewBatch(len(prompt), 1)
	defer b.Free()
	for i, tok := range prompt {
		b.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	if err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	g := m.NewSampler(SamplerParams{})
	defer g.Free()
	if got, want := g.Sample(c, b.Len()-1), argmax(c.Logits(-1)); got != want {
		t.Errorf("greedy sampler %d, argmax %d", got, want)
	}
	draw := func(seed uint32) []int32 {
		s := m.NewSampler(SamplerParams{Temperature: 1.5, TopK: 200, TopP: 0.95, MinP: 0.001, RepeatPenalty: 1.1, Seed: seed})
		defer s.Free()
		for _, tok := range prompt {
			s.Accept(tok)
		}
		out := make([]int32, 20)
		for i := range out {
			out[i] = s.Sample(c, b.Len()-1)
		}
		return out
	}
	a1, a2, other := draw(7), draw(7), draw(8)
	if !slices.Equal(a1, a2) {
		t.Errorf("same seed, different draws: %v %v", a1, a2)
	}
	if slices.Equal(a1, other) {
		t.Errorf("different seeds, same draws: %v", a1)
	}
	distinct := map[int32]bool{}
	for _, tok := range a1 {
		distinct[tok] = true
	}
	if len(distinct) < 3 {
		t.Errorf("temperature sampling is not drawing: %v", a1)
	}
}

// TestF16PaddedModel loads the kind of model benchmarks use (F16, grouped
// KV heads, a vocabulary padded with unused tokens) and checks that two
// sequences decoded in one batch continue exactly as each does alone.
func TestF16PaddedModel(t *testing.T) {
	l := openLib(t)
	path, err := testmodel.WriteLlama(t.TempDir(), testmodel.Config{Name: "f16", Vocab: 8000, Embd: 128, Layers: 2, Heads: 8, HeadsKV: 2, F16: true, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	m := loadModel(t, l, path)
	if m.NVocab() != 8000 {
		t.Fatalf("vocab %d", m.NVocab())
	}
	c := newContext(t, m, ContextParams{NCtx: 512, NSeqMax: 2, KVUnified: true})
	prompts := [][]int32{}
	for _, s := range []string{"the memory of water", "a note"} {
		toks, _ := m.Tokenize(s, true, false)
		prompts = append(prompts, toks)
	}
	var solo [][]int32
	for _, p := range prompts {
		c.MemoryClear()
		solo = append(solo, greedy(t, c, p, 8))
	}
	c.MemoryClear()
	b := NewBatch(64, 1)
	defer b.Free()
	rows := make([]int, 2)
	pos := make([]int32, 2)
	for s, p := range prompts {
		for i, tok := range p {
			if i == len(p)-1 {
				rows[s] = b.Len()
			}
			b.Add(tok, int32(i), int32(s), i == len(p)-1)
		}
		pos[s] = int32(len(p))
	}
	batched := make([][]int32, 2)
	for range 8 {
		if err := c.Decode(b); err != nil {
			t.Fatal(err)
		}
		next := make([]int32, 2)
		for s := range next {
			next[s] = argmax(c.Logits(rows[s]))
			batched[s] = append(batched[s], next[s])
		}
		b.Clear()
		for s := range next {
			rows[s] = b.Len()
			b.Add(next[s], pos[s], int32(s), true)
			pos[s]++
		}
	}
	for s := range solo {
		if !slices.Equal(solo[s], batched[s]) {
			t.Errorf("sequence %d: alone %v, batched %v", s, solo[s], batched[s])
		}
	}
}

// TestQ8Model: a generated Q8_0 model (the benchmarks' other weight type)
// loads, and its logits are the F32 model's up to quantization noise.
func TestQ8Model(t *testing.T) {
	l := openLib(t)
	cfg := testmodel.Config{Name: "f32", Embd: 128, Layers: 2, Heads: 4, HeadsKV: 2, FF: 256, Seed: 5}
	f32, err := testmodel.WriteLlama(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Q8 = "q8", true
	q8, err := testmodel.WriteLlama(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logits [2][]float32
	var size [2]uint64
	for i, path := range []string{f32, q8} {
		m := loadModel(t, l, path)
		size[i] = m.SizeBytes()
		toks, err := m.Tokenize("the memory of water runs deep", true, false)
		if err != nil {
			t.Fatal(err)
		}
		logits[i] = prefillLogits(t, newContext(t, m, ContextParams{NCtx: 256}), toks)
	}
	var dot, na, nb float64
	for i := range logits[0] {
		a, b := float64(logits[0][i]), float64(logits[1][i])
		dot, na, nb = dot+a*b, na+a*a, nb+b*b
	}
	// Q8_0 keeps 34 bytes per 32 weights where F32 takes 128; the norms
	// stay F32. Logits equal to the last digit would mean no Q8_0 at all.
	if size[1] >= size[0]/2 {
		t.Errorf("the Q8_0 model is %d bytes, the F32 one %d: its weights are not Q8_0", size[1], size[0])
	}
	if cos := dot / math.Sqrt(na*nb); cos < 0.99 || cos > 0.999999 {
		t.Fatalf("cosine of Q8_0 and F32 logits %.7f, want in [0.99, 0.999999]", cos)
	} else {
		t.Logf("cosine of Q8_0 and F32 logits %.5f", cos)
	}
}

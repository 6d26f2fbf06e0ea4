package inference

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeEmbedModel tokenizes a text as BOS, one token per word (its length),
// SEP; its vector for a sequence is (length, sum of tokens).
type fakeEmbedModel struct {
	gate    chan struct{} // when set, each embed waits for a receive
	started atomic.Int32
	mu      sync.Mutex
	calls   [][][]int32
}

func (f *fakeEmbedModel) tokenize(text string) ([]int32, error) {
	toks := []int32{1}
	for _, w := range strings.Fields(text) {
		toks = append(toks, int32(10+len(w)))
	}
	return append(toks, 2), nil
}

func (f *fakeEmbedModel) embed(seqs [][]int32) ([][]float32, error) {
	f.started.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(seqs))
	f.mu.Unlock()
	out := make([][]float32, len(seqs))
	for i, s := range seqs {
		var sum int32
		for _, t := range s {
			sum += t
		}
		out[i] = []float32{float32(len(s)), float32(sum)}
	}
	return out, nil
}

func (f *fakeEmbedModel) close() {}

func (f *fakeEmbedModel) callLog() [][][]int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func newFakeEmbedder(t *testing.T, f *fakeEmbedModel, cfg EmbedderConfig) *Embedder {
	e := newEmbedder(f, ModelInfo{}, cfg, 2, unitVectors)
	t.Cleanup(func() { e.Close() })
	return e
}

func TestEmbedderPacksInputs(t *testing.T) {
	f := &fakeEmbedModel{}
	e := newFakeEmbedder(t, f, EmbedderConfig{BatchSize: 10, Sequences: 3, MaxTokens: 6})
	texts := []string{"a", "bb cc", "one two three four five six seven", "x y", "", "q"}
	got, err := e.Embed(context.Background(), texts, Background)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		toks, _ := f.tokenize(text)
		cut := max(0, len(toks)-6)
		if cut > 0 {
			toks = append(toks[:5], 2) // the closing token survives the cut
		}
		var sum int32
		for _, tk := range toks {
			sum += tk
		}
		n := math.Hypot(float64(len(toks)), float64(sum))
		want := []float32{float32(float64(len(toks)) / n), float32(float64(sum) / n)}
		if got[i].Tokens != len(toks) || got[i].Truncated != cut || math.Abs(float64(got[i].Vector[0]-want[0])) > 1e-6 || math.Abs(float64(got[i].Vector[1]-want[1])) > 1e-6 {
			t.Errorf("input %d: %+v, want %v, %d tokens, %d cut", i, got[i], want, len(toks), cut)
		}
	}
	calls := f.callLog()
	if len(calls) >= len(texts) {
		t.Fatalf("%d decodes for %d inputs: nothing was packed", len(calls), len(texts))
	}
	for _, c := range calls {
		n := 0
		for _, s := range c {
			n += len(s)
		}
		if len(c) > 3 || n > 10 {
			t.Fatalf("decode of %d sequences, %d tokens; limits 3 and 10", len(c), n)
		}
	}
}

// TestEmbedderRawVectors checks the reranker's setting: vectors come out
// as the model pooled them.
func TestEmbedderRawVectors(t *testing.T) {
	f := &fakeEmbedModel{}
	e := newEmbedder(f, ModelInfo{}, EmbedderConfig{BatchSize: 64, Sequences: 4, MaxTokens: 16}, 2, rawVectors)
	t.Cleanup(func() { e.Close() })
	got, err := e.embedTokens(context.Background(), [][]int32{{1, 2, 3}, {7}}, Interactive)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Vector, []float32{3, 6}) || !slices.Equal(got[1].Vector, []float32{1, 7}) {
		t.Fatalf("raw vectors %v, %v; want [3 6], [1 7]", got[0].Vector, got[1].Vector)
	}
}

func TestEmbedderInteractiveFirst(t *testing.T) {
	f := &fakeEmbedModel{gate: make(chan struct{})}
	e := newFakeEmbedder(t, f, EmbedderConfig{BatchSize: 64, Sequences: 2, MaxTokens: 16})
	var wg sync.WaitGroup
	wg.Go(func() { e.Embed(context.Background(), []string{"first"}, Background) })
	waitFor(t, "first decode", func() bool { return f.started.Load() == 1 })
	wg.Go(func() { e.Embed(context.Background(), []string{"b b", "b b", "b b"}, Background) })
	waitFor(t, "background queued", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.pending) == 3 })
	wg.Go(func() { e.Embed(context.Background(), []string{"query"}, Interactive) })
	waitFor(t, "query queued", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.pending) == 4 })
	for range 3 {
		f.gate <- struct{}{}
	}
	wg.Wait()
	calls := f.callLog()
	query, _ := f.tokenize("query")
	if len(calls) != 3 || !slices.Equal(calls[1][0], query) {
		t.Fatalf("decodes %v: the query should lead the second", calls)
	}
}

func TestEmbedderCancelAndClose(t *testing.T) {
	f := &fakeEmbedModel{gate: make(chan struct{})}
	e := newEmbedder(f, ModelInfo{}, EmbedderConfig{BatchSize: 64, Sequences: 1, MaxTokens: 16}, 2, unitVectors)
	first := make(chan error, 1)
	go func() { _, err := e.Embed(context.Background(), []string{"a"}, Background); first <- err }()
	waitFor(t, "first decode", func() bool { return f.started.Load() == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() { _, err := e.Embed(ctx, []string{"bbbbb"}, Background); cancelled <- err }()
	waiting := make(chan error, 1)
	waitFor(t, "queued", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.pending) == 1 })
	go func() { _, err := e.Embed(context.Background(), []string{"cc"}, Background); waiting <- err }()
	waitFor(t, "queued", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return len(e.pending) == 2 })
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	f.gate <- struct{}{} // finish the first decode
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// The loop dropped the cancelled input and now embeds "cc"; close while
	// that decode is in flight.
	waitFor(t, "second decode", func() bool { return f.started.Load() == 2 })
	done := make(chan struct{})
	go func() { e.Close(); close(done) }()
	f.gate <- struct{}{}
	<-done
	if err := <-waiting; err != nil && !errors.Is(err, ErrClosed) {
		t.Fatalf("call in flight at Close: %v", err)
	}
	for _, c := range f.callLog() {
		if b, _ := f.tokenize("bbbbb"); slices.Equal(c[0], b) {
			t.Fatal("the cancelled input was embedded")
		}
	}
	if _, err := e.Embed(context.Background(), []string{"d"}, Interactive); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

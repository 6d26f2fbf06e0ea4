package inference

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
)

func TestFitPair(t *testing.T) {
	bos, q, mid, d, end := []int32{1}, []int32{10, 11, 12}, []int32{2}, []int32{20, 21, 22, 23}, []int32{2}
	if got := fitPair(bos, q, mid, d, end, 100); !slices.Equal(got, []int32{1, 10, 11, 12, 2, 20, 21, 22, 23, 2}) {
		t.Errorf("no cut: %v", got)
	}
	if got := fitPair(bos, q, mid, d, end, 7); !slices.Equal(got, []int32{1, 10, 11, 12, 2, 20, 2}) {
		t.Errorf("document cut: %v", got)
	}
	if got := fitPair(bos, q, mid, d, end, 5); !slices.Equal(got, []int32{1, 10, 11, 2, 2}) {
		t.Errorf("document gone, query cut: %v", got)
	}
}

func loadTestReranker(t *testing.T, cfg RerankerConfig) (*Reranker, *testmodel.Reranker) {
	t.Helper()
	lib := llamatest.Library(t)
	tm, err := testmodel.WriteReranker(t.TempDir(), testmodel.Config{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Path = tm.Path
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	r, err := LoadReranker(lib, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, tm
}

func TestRerankerLlama(t *testing.T) {
	r, tm := loadTestReranker(t, RerankerConfig{})
	ctx := context.Background()
	query := "how do I water the garden"
	docs := []string{
		"water the garden in the morning",
		"the cat sleeps on the warm roof all day long while the rain falls",
		"garden",
		"I read a book about ships and the sea",
		"water water water",
	}

	// The pair reads [BOS] query [EOS] doc [EOS], as llama.cpp's server
	// builds it for a vocabulary with add_bos and add_eos.
	q, _ := r.model.Tokenize(query, false, false)
	d0, _ := r.model.Tokenize(docs[0], false, false)
	want := slices.Concat([]int32{testmodel.TokenBOS}, q, []int32{testmodel.TokenEOS}, d0, []int32{testmodel.TokenEOS})
	if got, err := r.pair(query, docs[0]); err != nil || !slices.Equal(got, want) {
		t.Fatalf("pair tokens = %v, %v; want %v", got, err, want)
	}

	batched, err := r.Score(ctx, query, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(batched) != len(docs) {
		t.Fatalf("%d scores for %d docs", len(batched), len(docs))
	}
	again, err := r.Score(ctx, query, docs)
	if err != nil || !slices.Equal(again, batched) {
		t.Errorf("not deterministic: %v then %v (%v)", batched, again, err)
	}
	distinct := map[float32]bool{}
	for i, d := range docs {
		one, err := r.Score(ctx, query, []string{d})
		if err != nil || len(one) != 1 {
			t.Fatalf("doc %d alone: %v %v", i, one, err)
		}
		if diff := math.Abs(float64(one[0] - batched[i])); diff > 1e-4 {
			t.Errorf("doc %d: batched %v, alone %v (diff %g)", i, batched[i], one[0], diff)
		}
		toks, _ := r.pair(query, d)
		direct := tm.Score(toks)
		if diff := math.Abs(float64(batched[i]) - direct); diff > 1e-4*math.Max(1, math.Abs(direct)) {
			t.Errorf("doc %d: llama.cpp %v, direct %v (diff %g)", i, batched[i], direct, diff)
		}
		distinct[batched[i]] = true
		t.Logf("doc %d: score %.6f direct %.6f", i, batched[i], direct)
	}
	if len(distinct) != len(docs) {
		t.Errorf("scores do not differ across documents: %v", batched)
	}

	// Concurrent calls share decodes and get what they would alone.
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := r.Score(ctx, query, []string{docs[i], docs[(i+1)%len(docs)]})
			if err != nil {
				t.Error(err)
				return
			}
			if math.Abs(float64(s[0]-batched[i])) > 1e-4 || math.Abs(float64(s[1]-batched[(i+1)%len(docs)])) > 1e-4 {
				t.Errorf("concurrent call %d: %v", i, s)
			}
		}()
	}
	wg.Wait()

	if s, err := r.Score(ctx, query, nil); err != nil || s != nil {
		t.Errorf("no docs: %v %v", s, err)
	}
	r.Close()
	if _, err := r.Score(ctx, query, docs); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestRerankerTruncates(t *testing.T) {
	r, tm := loadTestReranker(t, RerankerConfig{MaxTokens: 16})
	long := strings.Repeat("the garden and the water ", 40)
	toks, err := r.pair("water", long)
	if err != nil || len(toks) != 16 || toks[0] != testmodel.TokenBOS || toks[15] != testmodel.TokenEOS {
		t.Fatalf("cut pair = %v, %v", toks, err)
	}
	s, err := r.Score(context.Background(), "water", []string{long})
	if err != nil {
		t.Fatal(err)
	}
	if direct := tm.Score(toks); math.Abs(float64(s[0])-direct) > 1e-4*math.Max(1, math.Abs(direct)) {
		t.Errorf("cut pair: llama.cpp %v, direct %v", s[0], direct)
	}
}

func TestLoadRerankerRefusesEmbedder(t *testing.T) {
	lib := llamatest.Library(t)
	e, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadReranker(lib, RerankerConfig{Path: e.Path, Threads: 1})
	if err == nil {
		r.Close()
		t.Fatal("an embedding model loaded as a reranker")
	}
	if want := e.Path + " is not a reranker model: its pooling type is mean; use it as the embedder"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
}

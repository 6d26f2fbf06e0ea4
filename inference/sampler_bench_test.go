package inference

import (
	"fmt"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/testmodel"
)

// benchVocabs are the vocabulary sizes of the sampling benchmark: Llama 2's
// (TinyLlama) and Gemma 3's.
var benchVocabs = []int{32000, 262144}

// benchModel writes a one-layer model with an n-token vocabulary; only its
// vocabulary is loaded.
func benchModel(b *testing.B, dir string, n int) string {
	b.Helper()
	cfg := testmodel.Config{Name: fmt.Sprintf("vocab%d", n), Vocab: n, Embd: 32, Layers: 1, Heads: 2, FF: 32, F16: true}
	p, err := testmodel.WriteLlama(dir, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSampleStep is the scheduler's per-token work for one row after
// a decode (Scheduler.accept without the output buffering): pick the token
// from the row's logits, check it for end of generation, record it for the
// repeat penalty and look up its text. The logits are fixed pseudo-random
// rows, each led by a word token, so the cost is the sampling's alone.
func BenchmarkSampleStep(b *testing.B) {
	lib := testLibrary(b)
	dir := b.TempDir()
	for _, n := range benchVocabs {
		m, err := lib.LoadModel(benchModel(b, dir, n), llama.ModelParams{VocabOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		v := ModelVocab(m)
		rows := benchRows(n, 8)
		prompt := make([]int32, 64)
		for i := range prompt {
			prompt[i] = testmodel.FirstWordToken + int32(i*37%500)
		}
		for _, c := range []struct {
			name string
			opt  Sampling
		}{
			{"greedy", Sampling{}},
			{"greedy-penalty", Sampling{RepeatPenalty: 1.1}},
			{"typical-penalty", Sampling{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1.1, Seed: 1}},
		} {
			b.Run(fmt.Sprintf("vocab=%d/%s", n, c.name), func(b *testing.B) {
				s := newSampler(c.opt, prompt)
				sink := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					tok := s.sample(rows[i%len(rows)])
					if v.IsEOG(tok) {
						sink++
					}
					s.accept(tok)
					sink += len(v.Piece(tok))
				}
				if sink == 0 {
					b.Fatal("no text sampled")
				}
			})
		}
	}
}

// benchRows returns k logits rows of n values in [-4, 4); row j peaks at
// word token FirstWordToken+7j with logit 10.
func benchRows(n, k int) [][]float32 {
	rows := make([][]float32, k)
	x := uint64(0x9e3779b97f4a7c15)
	for j := range rows {
		r := make([]float32, n)
		for i := range r {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			r[i] = float32(x>>40)/float32(1<<21) - 4
		}
		r[testmodel.FirstWordToken+int32(7*j)] = 10
		rows[j] = r
	}
	return rows
}

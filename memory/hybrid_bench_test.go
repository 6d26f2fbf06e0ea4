package memory

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// randomEmbedder answers every query with a fresh random vector: the cost
// of a real model's query embedding is not part of this benchmark.
type randomEmbedder struct {
	dim int
	rng *rand.Rand
}

func (e *randomEmbedder) Embed(_ context.Context, texts []string, _ inference.Priority) ([]inference.Embedding, error) {
	out := make([]inference.Embedding, len(texts))
	for i := range out {
		out[i].Vector = randomVector(e.rng, e.dim)
	}
	return out, nil
}
func (e *randomEmbedder) Info() inference.ModelInfo { return inference.ModelInfo{Fingerprint: "bench"} }
func (e *randomEmbedder) Dim() int                  { return e.dim }

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// hybridBenchService serves the bench store of 100k chunks of
// recall_bench_test.go with a 768-dimension vector of every chunk
// (generated, in memory). The query embedding is a random vector, so a
// real model's query cost (one short Interactive decode) comes on top.
func hybridBenchService(b *testing.B) *Service {
	const n, dim = 100_000, 768
	db := benchStore(b, n)
	var maxID uint64
	_ = db.View(func(tx *store.Tx) error { maxID = tx.MaxChunkID(); return nil })
	rng := rand.New(rand.NewPCG(21, 22))
	idx := vector.New(dim)
	idx.Grow(int(maxID))
	for id := uint64(1); id <= maxID; id++ {
		if err := idx.AddFloat(id, randomVector(rng, dim)); err != nil {
			b.Fatal(err)
		}
	}
	// No floor: random query vectors are all noise, and the benchmark
	// measures the fusion of a full vector list.
	return New(Config{DB: db, VectorFloor: -1, Vectors: vector.Serve(db, idx, &randomEmbedder{dim: dim, rng: rand.New(rand.NewPCG(1, 2))})})
}

// BenchmarkHybridRecall is recall at 100k chunks with BM25 and vectors
// (hybridBenchService), fused, k=10.
func BenchmarkHybridRecall(b *testing.B) {
	benchRecall(b, hybridBenchService(b), memd.Filters{})
}

// BenchmarkHybridRecallFiltered is BenchmarkHybridRecall with the filters
// of BenchmarkRecallFiltered100k.
func BenchmarkHybridRecallFiltered(b *testing.B) {
	s := hybridBenchService(b)
	for _, c := range benchFilters {
		b.Run(c.name, func(b *testing.B) { benchRecall(b, s, c.f) })
	}
}

package memory

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/memory/vector"
	"github.com/memd-dev/memd/store"
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

// servingVectors is a Vectors serving idx with e, as after a load.
func servingVectors(db *store.DB, idx *vector.Index, e QueryEmbedder) *Vectors {
	v := NewVectors(db, VectorsConfig{})
	v.cfg.Embedder = e
	v.serving = &servingIndex{fp: e.Info().Fingerprint, index: idx, embedder: e}
	return v
}

// BenchmarkHybridRecall is recall at 100k chunks with BM25 (the bench store
// of recall_bench_test.go) and a 768-dimension vector of every chunk
// (generated, in memory), fused, k=10. The query embedding is a random
// vector, so a real model's query cost (one short Interactive decode) comes
// on top.
func BenchmarkHybridRecall(b *testing.B) {
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
	s := New(Config{DB: db, Vectors: servingVectors(db, idx, &randomEmbedder{dim: dim, rng: rand.New(rand.NewPCG(1, 2))})})
	qrng := rand.New(rand.NewPCG(11, 12))
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		q := syntheticWord(20+qrng.IntN(1980)) + " " + syntheticWord(20+qrng.IntN(1980)) + " " + syntheticWord(20+qrng.IntN(1980))
		t0 := time.Now()
		res, err := s.Recall(context.Background(), RecallRequest{Query: q, K: 10})
		if err != nil || len(res.Warnings) > 0 {
			b.Fatal(err, res.Warnings)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

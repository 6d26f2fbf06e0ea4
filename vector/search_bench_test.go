package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
)

// The benchmarks search generated 768-dimension vectors and report, beside
// the p50 and p99 latency of k=10, the recall@10 against an exact float32
// scan of the vectors before quantization:
//
//	go test ./vector -run - -bench Search -benchtime 200x -count 3
//
// "gaussian" vectors are independent N(0,1) components: the worst case for
// sign codes. "clustered" vectors are one of 1000 random unit centroids plus
// Gaussian noise of norm 0.75 (same-cluster cosine ≈ 0.64), closer to how
// real embeddings group by topic. "anisotropic" (100k only) adds to those a
// direction shared by all, of norm 0.6, as real embedders do: unrelated
// vectors then have cosine ≈ 0.26. Queries are drawn the same way.

const (
	benchDim     = 768
	benchK       = 10
	clusters     = 1000
	clusterNoise = 0.75
	sharedWeight = 0.6
)

type benchSet struct {
	index   *Index
	queries [][]float32
	truth   [][]uint64 // per query, the exact top benchK
}

var (
	benchMu   sync.Mutex
	benchSets = map[string]*benchSet{}
)

// loadSet builds the set once per process, so -count and sub-benchmarks
// share it.
func loadSet(b *testing.B, kind string, n int) *benchSet {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprint(kind, n)
	if s := benchSets[key]; s != nil {
		return s
	}
	start := time.Now()
	s := buildSet(kind, n)
	b.Logf("built %s n=%d in %v (%d MiB)", kind, n, time.Since(start).Round(time.Millisecond), s.index.Bytes()>>20)
	benchSets[key] = s
	return s
}

// generator makes vector i of a set the same way wherever it is asked for.
type generator struct {
	kind      string
	centroids [][]float32
	shared    []float32 // for "anisotropic"
}

func newGenerator(kind string) *generator {
	g := &generator{kind: kind}
	if kind == "clustered" || kind == "anisotropic" {
		r := rand.New(rand.NewPCG(99, 99))
		for range clusters {
			c := gaussian(r, benchDim)
			scale(c, 1/norm(c))
			g.centroids = append(g.centroids, c)
		}
		g.shared = gaussian(r, benchDim)
		scale(g.shared, sharedWeight/norm(g.shared))
	}
	return g
}

func (g *generator) vector(r *rand.Rand, out []float32) {
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	if g.centroids != nil {
		scale(out, clusterNoise/float32(math.Sqrt(benchDim)))
		c := g.centroids[r.IntN(clusters)]
		for i := range out {
			out[i] += c[i]
		}
	}
	if g.kind == "anisotropic" {
		for i := range out {
			out[i] += g.shared[i]
		}
	}
	scale(out, 1/norm(out))
}

func norm(v []float32) float32 {
	var s float64
	for _, c := range v {
		s += float64(c) * float64(c)
	}
	return float32(math.Sqrt(s))
}

func scale(v []float32, f float32) {
	for i := range v {
		v[i] *= f
	}
}

// dot4 is the dot products of a with b0…b3: a's components are loaded once
// for four vectors, which makes the ground truth twice as quick to build.
func dot4(a, b0, b1, b2, b3 []float32) (s0, s1, s2, s3 float32) {
	b0, b1, b2, b3 = b0[:len(a)], b1[:len(a)], b2[:len(a)], b3[:len(a)]
	for i, x := range a {
		s0 += x * b0[i]
		s1 += x * b1[i]
		s2 += x * b2[i]
		s3 += x * b3[i]
	}
	return
}

func buildSet(kind string, n int) *benchSet {
	g := newGenerator(kind)
	s := &benchSet{index: New(benchDim)}
	qr := rand.New(rand.NewPCG(1234, 5678))
	// The exact scan that makes the truth costs n×queries dot products: at
	// 1M, 50 queries keep building the set to about a minute on 2 cores.
	queries := 100
	if n > 200_000 {
		queries = 50
	}
	for range queries {
		q := make([]float32, benchDim)
		g.vector(qr, q)
		s.queries = append(s.queries, q)
	}

	// Two goroutines generate halves of the set, each block from its own
	// seed, and keep the exact float32 top list of every query as they go.
	const block = 4096
	s.index.Grow(n)
	halves := 2
	tops := make([][]topK, halves)
	var wg sync.WaitGroup
	for h := range halves {
		wg.Go(func() {
			tops[h] = make([]topK, queries)
			for q := range tops[h] {
				tops[h][q].k = benchK
			}
			var vs [4][]float32
			for j := range vs {
				vs[j] = make([]float32, benchDim)
			}
			for lo := h * block; lo < n; lo += halves * block {
				r := rand.New(rand.NewPCG(uint64(lo), 42))
				for id := lo; id < min(lo+block, n); id += 4 { // block and n are multiples of 4
					for j, v := range vs {
						g.vector(r, v)
						if err := s.index.Add(uint64(id+j), store.Quantize(v)); err != nil {
							panic(err)
						}
					}
					for q, query := range s.queries {
						d0, d1, d2, d3 := dot4(query, vs[0], vs[1], vs[2], vs[3])
						top := &tops[h][q]
						top.push(Result{Chunk: uint64(id), Score: d0})
						top.push(Result{Chunk: uint64(id + 1), Score: d1})
						top.push(Result{Chunk: uint64(id + 2), Score: d2})
						top.push(Result{Chunk: uint64(id + 3), Score: d3})
					}
				}
			}
		})
	}
	wg.Wait()
	for q := range queries {
		all := tops[0][q]
		for _, r := range tops[1][q].h {
			all.push(r)
		}
		var ids []uint64
		for _, r := range all.sorted() {
			ids = append(ids, r.Chunk)
		}
		s.truth = append(s.truth, ids)
	}
	return s
}

func (s *benchSet) recall() float64 {
	found := 0
	for q, query := range s.queries {
		for _, r := range s.index.Search(query, benchK, nil) {
			if slices.Contains(s.truth[q], r.Chunk) {
				found++
			}
		}
	}
	return float64(found) / float64(benchK*len(s.queries))
}

func benchSearch(b *testing.B, n int, kinds []string, candidates []int) {
	for _, kind := range kinds {
		s := loadSet(b, kind, n)
		for _, c := range candidates {
			name := fmt.Sprintf("%s/candidates=%d", kind, c)
			if c == 0 {
				name = fmt.Sprintf("%s/candidates=default(%d)", kind, DefaultCandidates(n))
			}
			b.Run(name, func(b *testing.B) {
				s.index.Candidates = c
				took := make([]time.Duration, 0, b.N)
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					s.index.Search(s.queries[i%len(s.queries)], benchK, nil)
					took = append(took, time.Since(start))
				}
				b.StopTimer()
				cpu := cpuTime() - cpu0
				slices.Sort(took)
				ms := func(p float64) float64 {
					return float64(took[int(p*float64(len(took)-1))]) / 1e6
				}
				b.ReportMetric(ms(0.50), "p50-ms")
				b.ReportMetric(ms(0.99), "p99-ms")
				b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
				b.ReportMetric(s.recall(), "recall@10")
			})
		}
	}
}

// cpuTime is the CPU time this process has used. Beside wall-clock
// percentiles it shows what a query costs when other work shares the cores.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func BenchmarkSearch100k(b *testing.B) {
	benchSearch(b, 100_000, []string{"clustered", "gaussian", "anisotropic"}, []int{0, 100, 200, 500, 1000, 2000, 5000})
}

func BenchmarkSearch1M(b *testing.B) {
	benchSearch(b, 1_000_000, []string{"clustered", "gaussian"}, []int{0, 500, 1000, 2000, 5000, 10000, 20000})
}

package vector

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/memd-dev/memd/store"
)

func gaussian(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// bruteForce scores every stored vector, dequantized, in float64.
func bruteForce(stored map[uint64]store.QuantizedVector, query []float32, k int, accept func(uint64) bool) []Result {
	var top topK
	top.k = k
	for id, q := range stored {
		if accept != nil && !accept(id) {
			continue
		}
		v := q.Dequantize()
		var dot, vv, qq float64
		for i := range v {
			dot += float64(v[i]) * float64(query[i])
			vv += float64(v[i]) * float64(v[i])
			qq += float64(query[i]) * float64(query[i])
		}
		top.push(Result{Chunk: id, Score: float32(dot / math.Sqrt(vv*qq))})
	}
	return top.sorted()
}

func sameResults(t *testing.T, what string, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i].Chunk != want[i].Chunk || math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
			t.Fatalf("%s: result %d is %+v, want %+v\ngot  %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

func fill(t testing.TB, x *Index, r *rand.Rand, n int) map[uint64]store.QuantizedVector {
	stored := map[uint64]store.QuantizedVector{}
	for id := uint64(1); id <= uint64(n); id++ {
		q := store.Quantize(gaussian(r, x.Dim()))
		stored[id] = q
		if err := x.Add(id, q); err != nil {
			t.Fatal(err)
		}
	}
	return stored
}

func TestSearchIsExactWhenCandidatesCoverAll(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, dim := range []int{8, 100, 768} {
		x := New(dim)
		x.Candidates = 300
		stored := fill(t, x, r, 300)
		for range 20 {
			q := gaussian(r, dim)
			sameResults(t, "all candidates", x.Search(q, 15, nil), bruteForce(stored, q, 15, nil))
		}
	}
}

func TestSearchFindsAStoredVector(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	x := New(128)
	x.Candidates = 5
	stored := fill(t, x, r, 2000)
	for id := uint64(1); id <= 2000; id += 37 {
		got := x.Search(stored[id].Dequantize(), 1, nil)
		if len(got) != 1 || got[0].Chunk != id || got[0].Score < 0.9999 {
			t.Fatalf("query = vector of chunk %d: got %v", id, got)
		}
	}
}

func TestSearchFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	x := New(64)
	stored := fill(t, x, r, 1000)
	even := func(id uint64) bool { return id%2 == 0 }

	x.Candidates = 1000
	q := gaussian(r, 64)
	got := x.Search(q, 10, even)
	sameResults(t, "even chunks", got, bruteForce(stored, q, 10, even))

	// A filter that lets few through still fills k: it applies before the
	// candidate cut, not after.
	x.Candidates = 20
	few := func(id uint64) bool { return id%100 == 7 }
	got = x.Search(q, 10, few)
	sameResults(t, "rare chunks", got, bruteForce(stored, q, 10, few))

	if got := x.Search(q, 10, func(uint64) bool { return false }); len(got) != 0 {
		t.Fatalf("a filter that refuses all gave %v", got)
	}
}

func TestAddRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	x := New(32)
	x.Candidates = 1 << 20
	stored := fill(t, x, r, 50)
	for _, id := range []uint64{50, 1, 25, 25, 999} { // last slot, first, middle, twice, absent
		x.Remove(id)
		delete(stored, id)
	}
	if x.Len() != 47 {
		t.Fatalf("Len = %d after removing 3, want 47", x.Len())
	}
	// Replacing keeps one entry; re-adding a removed chunk brings it back.
	for _, id := range []uint64{10, 25} {
		q := store.Quantize(gaussian(r, 32))
		stored[id] = q
		if err := x.Add(id, q); err != nil {
			t.Fatal(err)
		}
	}
	if x.Len() != 48 {
		t.Fatalf("Len = %d, want 48", x.Len())
	}
	for range 20 {
		q := gaussian(r, 32)
		sameResults(t, "after edits", x.Search(q, 48, nil), bruteForce(stored, q, 48, nil))
	}
	for id := range stored {
		x.Remove(id)
	}
	if x.Len() != 0 || x.Search(gaussian(r, 32), 5, nil) != nil {
		t.Fatal("an emptied index still answers")
	}
}

func TestAddRefusesOtherDimensions(t *testing.T) {
	x := New(16)
	if err := x.AddFloat(1, make([]float32, 15)); !errors.Is(err, ErrDimension) {
		t.Fatalf("Add of 15 components to a 16-dim index: %v", err)
	}
	if got := x.Search(make([]float32, 15), 3, nil); got != nil {
		t.Fatalf("Search with a 15-dim query: %v", got)
	}
	if err := x.AddFloat(1, gaussian(rand.New(rand.NewPCG(5, 5)), 16)); err != nil {
		t.Fatal(err)
	}
	if got := x.Search(make([]float32, 16), 3, nil); got != nil {
		t.Fatalf("Search with a zero query: %v", got)
	}
	if x.Bytes() <= 16 {
		t.Fatalf("Bytes = %d for one 16-dim vector", x.Bytes())
	}
}

// TestConcurrentSearchAndEdit is for -race: searches (split across
// goroutines, since the index is large enough) run while vectors come and go.
func TestConcurrentSearchAndEdit(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	x := New(64)
	n := 2*minScanPerWorker + 100
	x.Grow(n)
	fill(t, x, r, n)
	x.Candidates = 2 * minRescorePerWorker

	var wg sync.WaitGroup
	for g := range 3 {
		q := gaussian(rand.New(rand.NewPCG(7, uint64(g))), 64)
		wg.Go(func() {
			for range 10 {
				res := x.Search(q, 10, func(id uint64) bool { return id%3 != 0 })
				if len(res) != 10 {
					t.Errorf("search gave %d results", len(res))
					return
				}
			}
		})
	}
	wg.Go(func() {
		r := rand.New(rand.NewPCG(8, 8))
		for i := range 300 {
			id := uint64(n + 1 + i)
			if err := x.AddFloat(id, gaussian(r, 64)); err != nil {
				t.Error(err)
			}
			x.Remove(uint64(i + 1))
		}
	})
	wg.Wait()
	if x.Len() != n {
		t.Fatalf("Len = %d, want %d", x.Len(), n)
	}
}

// When the filter lets fewer than Candidates through and they all share one
// code distance, every one of them is still re-scored.
func TestSearchFilterFewerThanCandidatesAtOneDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	x := New(64)
	x.Candidates = 5
	for id := uint64(1); id <= 50; id++ {
		v := gaussian(r, 64)
		for i := range v {
			v[i] = -float32(math.Abs(float64(v[i]))) - 0.1 // every sign bit differs from the query's
		}
		if err := x.AddFloat(id, v); err != nil {
			t.Fatal(err)
		}
	}
	q := make([]float32, 64)
	for i := range q {
		q[i] = 1
	}
	got := x.Search(q, 10, func(id uint64) bool { return id <= 3 })
	if len(got) != 3 {
		t.Fatalf("3 chunks accepted, Search gave %v", got)
	}
}

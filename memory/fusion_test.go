package memory

import (
	"math"
	"slices"
	"testing"

	"github.com/memd-dev/memd"
)

func TestFuse(t *testing.T) {
	list := func(name string, w float64, chunks ...uint64) fusedList {
		l := fusedList{name: name, weight: w}
		for i, c := range chunks {
			l.entries = append(l.entries, ranked{chunk: c, score: float64(10 - i)})
		}
		return l
	}
	cases := []struct {
		name   string
		k      int
		lists  []fusedList
		order  []uint64
		scores []float64
	}{
		{"one list keeps its order", 60, []fusedList{list("bm25", 1, 3, 1, 2)},
			[]uint64{3, 1, 2}, []float64{1.0 / 61, 1.0 / 62, 1.0 / 63}},
		{"agreement adds up", 60, []fusedList{list("bm25", 1, 1, 2), list("vector", 1, 2, 1)},
			[]uint64{1, 2}, []float64{1.0/61 + 1.0/62, 1.0/62 + 1.0/61}},
		{"in both beats first in one", 60, []fusedList{list("bm25", 1, 1, 2), list("vector", 1, 3, 2)},
			[]uint64{2, 1, 3}, []float64{2.0 / 62, 1.0 / 61, 1.0 / 61}},
		{"weights scale a list", 60, []fusedList{list("bm25", 1, 1), list("vector", 2, 2)},
			[]uint64{2, 1}, []float64{2.0 / 61, 1.0 / 61}},
		{"small k favours the top", 1, []fusedList{list("bm25", 1, 1, 2, 3), list("vector", 1, 4, 5, 3)},
			[]uint64{1, 4, 3, 2, 5}, []float64{1.0 / 2, 1.0 / 2, 2.0 / 4, 1.0 / 3, 1.0 / 3}},
		{"empty lists", 60, []fusedList{list("bm25", 1), list("vector", 1)}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := fuse(c.k, c.lists...)
			var order []uint64
			for i, f := range got {
				order = append(order, f.chunk)
				if math.Abs(f.score-c.scores[i]) > 1e-12 {
					t.Errorf("chunk %d score %v, want %v", f.chunk, f.score, c.scores[i])
				}
			}
			if !slices.Equal(order, c.order) {
				t.Errorf("order %v, want %v", order, c.order)
			}
		})
	}
}

func TestFuseWhy(t *testing.T) {
	got := fuse(60,
		fusedList{name: "bm25", weight: 1, entries: []ranked{{7, 3.5}, {8, 1.25}}},
		fusedList{name: "vector", weight: 1, entries: []ranked{{8, 0.9}}})
	want := map[uint64][]memd.Reason{
		8: {{List: "bm25", Rank: 2, Score: 1.25}, {List: "vector", Rank: 1, Score: 0.9}},
		7: {{List: "bm25", Rank: 1, Score: 3.5}},
	}
	if got[0].chunk != 8 {
		t.Fatalf("first %d, want 8", got[0].chunk)
	}
	for _, f := range got {
		if !slices.Equal(f.why, want[f.chunk]) {
			t.Errorf("chunk %d why %+v, want %+v", f.chunk, f.why, want[f.chunk])
		}
	}
}

func TestFusionDefaults(t *testing.T) {
	f := Fusion{}.withDefaults()
	if f.K != 60 || f.BM25Weight != 1 || f.VectorWeight != 1 || f.RerankDepth != 30 {
		t.Fatalf("defaults %+v", f)
	}
	if d := f.depth(10); d != 100 {
		t.Errorf("depth(10) = %d", d)
	}
	if d := f.depth(300); d != 600 {
		t.Errorf("depth(300) = %d", d)
	}
	if d := (Fusion{Depth: 20}).depth(50); d != 50 {
		t.Errorf("depth below k = %d", d)
	}
}

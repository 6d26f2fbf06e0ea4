package rank

import (
	"math"
	"slices"
	"testing"
)

func TestFuse(t *testing.T) {
	list := func(name string, w float64, chunks ...uint64) List {
		l := List{Name: name, Weight: w}
		for i, c := range chunks {
			l.Entries = append(l.Entries, Scored{Chunk: c, Score: float64(10 - i)})
		}
		return l
	}
	cases := []struct {
		name   string
		k      int
		lists  []List
		order  []uint64
		scores []float64
	}{
		{"one list keeps its order", 60, []List{list("bm25", 1, 3, 1, 2)},
			[]uint64{3, 1, 2}, []float64{1.0 / 61, 1.0 / 62, 1.0 / 63}},
		{"agreement adds up", 60, []List{list("bm25", 1, 1, 2), list("vector", 1, 2, 1)},
			[]uint64{1, 2}, []float64{1.0/61 + 1.0/62, 1.0/62 + 1.0/61}},
		{"in both beats first in one", 60, []List{list("bm25", 1, 1, 2), list("vector", 1, 3, 2)},
			[]uint64{2, 1, 3}, []float64{2.0 / 62, 1.0 / 61, 1.0 / 61}},
		{"weights scale a list", 60, []List{list("bm25", 1, 1), list("vector", 2, 2)},
			[]uint64{2, 1}, []float64{2.0 / 61, 1.0 / 61}},
		{"small k favours the top", 1, []List{list("bm25", 1, 1, 2, 3), list("vector", 1, 4, 5, 3)},
			[]uint64{1, 4, 3, 2, 5}, []float64{1.0 / 2, 1.0 / 2, 2.0 / 4, 1.0 / 3, 1.0 / 3}},
		{"empty lists", 60, []List{list("bm25", 1), list("vector", 1)}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Fuse(c.k, c.lists...)
			var top float64 // a chunk first in every list
			for _, l := range c.lists {
				top += l.Weight / float64(c.k+1)
			}
			var order []uint64
			for i, f := range got {
				order = append(order, f.Chunk)
				if math.Abs(f.Score-c.scores[i]/top) > 1e-12 {
					t.Errorf("chunk %d score %v, want %v", f.Chunk, f.Score, c.scores[i]/top)
				}
			}
			if !slices.Equal(order, c.order) {
				t.Errorf("order %v, want %v", order, c.order)
			}
		})
	}
}

func TestFuseWhy(t *testing.T) {
	got := Fuse(60,
		List{Name: "bm25", Weight: 1, Entries: []Scored{{7, 3.5}, {8, 1.25}}},
		List{Name: "vector", Weight: 1, Entries: []Scored{{8, 0.9}}})
	want := map[uint64][]Why{
		8: {{List: "bm25", Rank: 2, Score: 1.25}, {List: "vector", Rank: 1, Score: 0.9}},
		7: {{List: "bm25", Rank: 1, Score: 3.5}},
	}
	if got[0].Chunk != 8 {
		t.Fatalf("first %d, want 8", got[0].Chunk)
	}
	for _, f := range got {
		if !slices.Equal(f.Why, want[f.Chunk]) {
			t.Errorf("chunk %d why %+v, want %+v", f.Chunk, f.Why, want[f.Chunk])
		}
	}
}

func TestFusionDefaults(t *testing.T) {
	f := Fusion{}.WithDefaults()
	if f.K != 60 || f.BM25Weight != 1 || f.VectorWeight != 1 || f.RerankDepth != 30 {
		t.Fatalf("defaults %+v", f)
	}
	if d := f.ListDepth(10); d != 100 {
		t.Errorf("depth(10) = %d", d)
	}
	if d := f.ListDepth(300); d != 600 {
		t.Errorf("depth(300) = %d", d)
	}
	if d := (Fusion{Depth: 20}).ListDepth(50); d != 50 {
		t.Errorf("depth below k = %d", d)
	}
}

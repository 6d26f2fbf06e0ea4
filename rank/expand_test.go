package rank

import (
	"math"
	"testing"
)

// chunkTerms is an index of a few chunks held in maps: Expand's arithmetic
// on figures worked by hand (memory's tests run it over the real store).
type chunkTerms map[uint64]map[string]uint32

func (c chunkTerms) ChunkTerms(id uint64, fn func(string, uint32)) error {
	for term, f := range c[id] {
		fn(term, f)
	}
	return nil
}

func (c chunkTerms) DocFreq(term string) int {
	n := 0
	for _, terms := range c {
		if terms[term] > 0 {
			n++
		}
	}
	return n
}

func TestExpandWeighsTheModelsTerms(t *testing.T) {
	ix := chunkTerms{
		1: {"tomato": 2, "blight": 1, "stake": 1},
		2: {"blight": 3, "stake": 1, "once": 1},
		3: {"onion": 4},
		4: {"stake": 1, "onion": 1},
	}
	q := ParseQuery("tomato")
	// Chunk 1 scores 3, chunk 2 1: shares 3/4 and 1/4 of the model.
	got, err := Expansion{Chunks: 2, Terms: 2, Weight: 0.5}.Expand(ix, Corpus{Chunks: 4}, q,
		[]Scored{{Chunk: 2, Score: 1}, {Chunk: 3, Score: 0.5}, {Chunk: 1, Score: 3}})
	if err != nil {
		t.Fatal(err)
	}
	// P(blight) = 3/4·1/4 + 1/4·3/5 = 0.3375, P(stake) = 3/4·1/4 + 1/4·1/5 =
	// 0.2375; "once" is in one chunk only, "onion" in no chunk fed back.
	want := map[string]float64{"tomato": 1, "blight": 0.5 * 0.3375 / 0.575, "stake": 0.5 * 0.2375 / 0.575}
	if len(got.Terms) != 3 || got.Terms[0] != "tomato" {
		t.Fatalf("terms %v; want tomato and two added", got.Terms)
	}
	for term, w := range want {
		if math.Abs(got.Weights[term]-w) > 1e-9 {
			t.Errorf("weight of %q %v, want %v", term, got.Weights[term], w)
		}
	}
	if q.Weights["blight"] != 0 || len(q.Terms) != 1 {
		t.Errorf("Expand changed the query it was given: %+v", q)
	}
}

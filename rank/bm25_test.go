package rank

import (
	"runtime"
	"testing"
)

// sparseIndex is an Index over a few postings whose chunk ids reach far,
// as in a store where notes come and go: its score board is large.
type sparseIndex map[string][]Posting

func (ix sparseIndex) Postings(term string, dst []Posting) ([]Posting, error) {
	return append(dst, ix[term]...), nil
}

func (sparseIndex) MaxChunkID() uint64 { return 1 << 20 }

// TestBoardOutlivesCollections: the score board (8 MiB here) was kept in a
// sync.Pool, which collections empty, so the query after a collection
// allocated and faulted in a new board: most of recall's slowest 1%.
func TestBoardOutlivesCollections(t *testing.T) {
	ix := sparseIndex{"bee": {{Chunk: 3, Freq: 1, Length: 10}, {Chunk: 1 << 19, Freq: 2, Length: 12}}}
	c := Corpus{Chunks: 1000, Length: 10000}
	q := ParseQuery("bee")
	if _, _, err := DefaultBM25.Rank(ix, c, q); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // twice: a sync.Pool's victim cache goes too
	runtime.ReadMemStats(&before)
	scores, _, err := DefaultBM25.Rank(ix, c, q)
	runtime.ReadMemStats(&after)
	if err != nil || len(scores) != 2 {
		t.Fatalf("Rank = %v, %v; want 2 chunks scored", scores, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("a query after two collections allocated %d bytes: the score board did not survive", n)
	}
}

package store

import (
	"fmt"
	"slices"
	"testing"
)

// TestPostingsOfASpanAcrossCommits writes a term's postings in a span
// over three commits, the first of which took the span's first id alone: a
// commit reads a span's stored blocks before writing them unless no
// earlier commit has a chunk there (postingEdits.freshSpan), and reading
// too few would lose the earlier postings.
func TestPostingsOfASpanAcrossCommits(t *testing.T) {
	db := openTest(t)
	base := uint64(3) << blockShift
	if err := db.Update(func(tx *Tx) error { return tx.bucket(bucketChunks).SetSequence(base - 1) }); err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for i := range 3 {
		chunks := []NewChunk{chunkOf("x", "shared", "shared"), chunkOf("y", "shared")}
		n := put(t, db, fmt.Sprintf("/f/%d.md", i), fmt.Sprint(i), chunks[:1+i%2]...)
		want = append(want, n.Chunks...)
	}
	if want[0] != base {
		t.Fatalf("first chunk id %d, want the span's first, %d", want[0], base)
	}
	var got []uint64
	for _, p := range postings(t, db, "shared") {
		got = append(got, p.Chunk)
	}
	if !slices.Equal(got, want) {
		t.Errorf("postings of shared: %v, want %v", got, want)
	}
}

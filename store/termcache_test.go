package store

import (
	"errors"
	"testing"
)

// A batch rolled back after its terms got ids leaves the term cache as it
// was: the next commit writes those terms to the dictionary itself, under
// ids of its own. (Learning the ids before the commit, the second note's
// "banana" would take the rolled-back id, never be written, and find no
// postings.)
func TestTermCacheLearnsOnlyCommittedTerms(t *testing.T) {
	db := openTest(t)
	put(t, db, "/n/a.md", "a", chunkOf("apple", "apple"))
	rollback := errors.New("rolled back")
	err := db.Update(func(tx *Tx) error {
		if _, err := tx.PutNote(&Note{Path: "/n/b.md", Folder: "/n", Hash: "b"}, []NewChunk{chunkOf("banana", "banana", "cherry")}); err != nil {
			return err
		}
		if err := tx.flushPostings(); err != nil { // the ids are given out here
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("update: %v", err)
	}
	c := put(t, db, "/n/c.md", "c", chunkOf("banana apple", "banana", "apple"))
	d := put(t, db, "/n/d.md", "d", chunkOf("date", "date"))
	for term, want := range map[string]uint64{"banana": c.Chunks[0], "date": d.Chunks[0]} {
		if got := postings(t, db, term); len(got) != 1 || got[0].Chunk != want {
			t.Errorf("postings of %q: %+v, want chunk %d", term, got, want)
		}
	}
	if got := postings(t, db, "apple"); len(got) != 2 {
		t.Errorf("postings of apple: %+v, want 2", got)
	}
	if got := postings(t, db, "cherry"); len(got) != 0 {
		t.Errorf("the rolled-back cherry has postings %+v", got)
	}
	db.ReleaseCaches()
	e := put(t, db, "/n/e.md", "e", chunkOf("banana", "banana"))
	if got := postings(t, db, "banana"); len(got) != 2 || got[1].Chunk != e.Chunks[0] {
		t.Errorf("postings of banana after the cache was released: %+v", got)
	}
	if err := db.checkLexicon(); err != nil {
		t.Error(err)
	}
}

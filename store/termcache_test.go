package store

import (
	"errors"
	"slices"
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

// Terms numbered by their producers' vocabularies index as their strings
// do: two vocabularies numbering one term differently give it one id, a
// number seen again in a later commit means that commit's term, and
// chunks without a vocabulary mix with numbered ones.
func TestVocabularyNumbersIndexAsStrings(t *testing.T) {
	db := openTest(t)
	va, vb := &Vocabulary{}, &Vocabulary{}
	numbered := func(v *Vocabulary, text string, terms ...TermFreq) NewChunk {
		return NewChunk{Chunk: Chunk{Text: text, StartLine: 1, EndLine: 1}, Terms: terms, Vocab: v}
	}
	a := &Note{Path: "/n/a.md", Folder: "/n", Hash: "a"}
	b := &Note{Path: "/n/b.md", Folder: "/n", Hash: "b"}
	c := &Note{Path: "/n/c.md", Folder: "/n", Hash: "c"}
	if err := db.Update(func(tx *Tx) error {
		if _, err := tx.PutNote(a, []NewChunk{numbered(va, "apple pear", TermFreq{"apple", 2, 0}, TermFreq{"pear", 1, 1})}); err != nil {
			return err
		}
		if _, err := tx.PutNote(b, []NewChunk{numbered(vb, "pear plum", TermFreq{"pear", 1, 0}, TermFreq{"plum", 1, 1})}); err != nil {
			return err
		}
		_, err := tx.PutNote(c, []NewChunk{chunkOf("plum", "plum")})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d := &Note{Path: "/n/d.md", Folder: "/n", Hash: "d"}
	if err := db.Update(func(tx *Tx) error { // vb's number 0 is still pear, 1 plum
		_, err := tx.PutNote(d, []NewChunk{numbered(vb, "plum pear", TermFreq{"plum", 3, 1}, TermFreq{"pear", 1, 0})})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for term, want := range map[string][]uint64{
		"apple": {a.Chunks[0]}, "pear": {a.Chunks[0], b.Chunks[0], d.Chunks[0]}, "plum": {b.Chunks[0], c.Chunks[0], d.Chunks[0]},
	} {
		var got []uint64
		for _, p := range postings(t, db, term) {
			got = append(got, p.Chunk)
		}
		if !slices.Equal(got, want) {
			t.Errorf("postings of %s: chunks %v, want %v", term, got, want)
		}
	}
	if got := postings(t, db, "plum"); got[2].Freq != 3 {
		t.Errorf("plum in d: frequency %d, want 3", got[2].Freq)
	}
	if err := db.checkLexicon(); err != nil {
		t.Error(err)
	}
}

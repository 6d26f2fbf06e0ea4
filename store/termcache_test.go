package store

import (
	"errors"
	"fmt"
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
	numbered := func(v *Vocabulary, text string, terms ...numberedTerm) NewChunk {
		return NewChunk{Chunk: Chunk{Text: text, StartLine: 1, EndLine: 1}, Nums: numberIn(v, terms), Vocab: v}
	}
	a := &Note{Path: "/n/a.md", Folder: "/n", Hash: "a"}
	b := &Note{Path: "/n/b.md", Folder: "/n", Hash: "b"}
	c := &Note{Path: "/n/c.md", Folder: "/n", Hash: "c"}
	if err := db.Update(func(tx *Tx) error {
		if _, err := tx.PutNote(a, []NewChunk{numbered(va, "apple pear", numberedTerm{"apple", 2, 0}, numberedTerm{"pear", 1, 1})}); err != nil {
			return err
		}
		if _, err := tx.PutNote(b, []NewChunk{numbered(vb, "pear plum", numberedTerm{"pear", 1, 0}, numberedTerm{"plum", 1, 1})}); err != nil {
			return err
		}
		_, err := tx.PutNote(c, []NewChunk{chunkOf("plum", "plum")})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d := &Note{Path: "/n/d.md", Folder: "/n", Hash: "d"}
	if err := db.Update(func(tx *Tx) error { // vb's number 0 is still pear, 1 plum
		_, err := tx.PutNote(d, []NewChunk{numbered(vb, "plum pear", numberedTerm{"plum", 3, 1}, numberedTerm{"pear", 1, 0})})
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

// A Vocabulary's marks learn their terms' cache entries; they must hold
// only for the cache they came from: not another store's, whose entries
// name other terms, nor this store's after its cache was dropped.
func TestVocabularyMarksFollowTheirCache(t *testing.T) {
	dbA, dbB := openTest(t), openTest(t)
	v, w := &Vocabulary{}, &Vocabulary{}
	n := 0
	put := func(db *DB, voc *Vocabulary, terms ...numberedTerm) uint64 {
		t.Helper()
		n++
		note := &Note{Path: fmt.Sprintf("/n/%d.md", n), Folder: "/n", Hash: fmt.Sprint(n)}
		if err := db.Update(func(tx *Tx) error {
			_, err := tx.PutNote(note, []NewChunk{{Chunk: Chunk{Text: "x", StartLine: 1, EndLine: 1}, Nums: numberIn(voc, terms), Vocab: voc}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return note.Chunks[0]
	}
	apple, pear := numberedTerm{Term: "apple", Freq: 1, Num: 0}, numberedTerm{Term: "pear", Freq: 2, Num: 1}
	want := map[*DB]map[string][]uint64{dbA: {}, dbB: {}}
	both := func(db *DB, voc *Vocabulary, terms ...numberedTerm) {
		id := put(db, voc, terms...)
		for _, tf := range terms {
			want[db][tf.Term] = append(want[db][tf.Term], id)
		}
	}
	both(dbA, v, apple, pear) // A learns apple, pear
	both(dbA, v, apple, pear) // v's marks learn A's entries
	both(dbB, w, numberedTerm{Term: "pear", Freq: 1, Num: 0}, numberedTerm{Term: "apple", Freq: 1, Num: 1})
	both(dbB, v, apple, pear) // B's entries are in another order
	dbA.ReleaseCaches()
	both(dbA, v, apple, pear) // A's cache starts again, empty
	both(dbA, v, pear, apple)
	for db, terms := range want {
		for term, chunks := range terms {
			var got []uint64
			for _, p := range postings(t, db, term) {
				got = append(got, p.Chunk)
			}
			if !slices.Equal(got, chunks) {
				t.Errorf("postings of %s: chunks %v, want %v", term, got, chunks)
			}
		}
		if err := db.checkLexicon(); err != nil {
			t.Error(err)
		}
	}
}

// numberedTerm is a term of a test chunk with its number in a Vocabulary.
type numberedTerm struct {
	Term      string
	Freq, Num uint32
}

// numberIn names terms in v and returns them as a chunk's Nums.
func numberIn(v *Vocabulary, terms []numberedTerm) []TermNum {
	out := make([]TermNum, len(terms))
	for i, nt := range terms {
		v.Name(nt.Num, nt.Term)
		out[i] = TermNum{Num: nt.Num, Freq: nt.Freq}
	}
	return out
}

// A producer names new numbers of its Vocabulary while commits read
// those of chunks it handed on before, growing the table past its first
// size: under -race this fails if a name is written where a commit reads.
func TestVocabularyNamedWhileCommitsRead(t *testing.T) {
	db := openTest(t)
	v := &Vocabulary{}
	const notes, termsEach = 120, 150 // 18,000 numbers, past vocabFirstTerms
	handed := make(chan NewChunk, 4)
	go func() {
		defer close(handed)
		for i := range notes {
			var nums []TermNum
			for j := range termsEach {
				num := uint32(i*termsEach + j)
				v.Name(num, fmt.Sprintf("t%05d", num))
				nums = append(nums, TermNum{Num: num, Freq: 1})
			}
			handed <- NewChunk{Chunk: Chunk{Text: "x", StartLine: 1, EndLine: 1}, Nums: nums, Vocab: v}
		}
	}()
	i := 0
	for c := range handed {
		i++
		note := &Note{Path: fmt.Sprintf("/n/%d.md", i), Folder: "/n", Hash: fmt.Sprint(i)}
		if err := db.Update(func(tx *Tx) error { _, err := tx.PutNote(note, []NewChunk{c}); return err }); err != nil {
			t.Fatal(err)
		}
	}
	for _, num := range []int{0, vocabFirstTerms, notes*termsEach - 1} {
		term := fmt.Sprintf("t%05d", num)
		if got := postings(t, db, term); len(got) != 1 || got[0].Chunk != uint64(num/termsEach+1) {
			t.Errorf("postings of %s: %v", term, got)
		}
	}
	if v.Name(0, "other"); v.Term(0) != "t00000" {
		t.Errorf("number 0 renamed to %q", v.Term(0))
	}
}

// A chunk's terms are by string or numbered in its Vocabulary, not mixed.
func TestChunkTermsOneWay(t *testing.T) {
	db := openTest(t)
	v := &Vocabulary{}
	v.Name(0, "apple")
	for _, c := range []NewChunk{
		{Nums: []TermNum{{Num: 0, Freq: 1}}},
		{Terms: []TermFreq{{Term: "apple", Freq: 1}}, Vocab: v},
	} {
		c.Chunk = Chunk{Text: "x", StartLine: 1, EndLine: 1}
		err := db.Update(func(tx *Tx) error {
			_, err := tx.PutNote(&Note{Path: "/n/a.md", Folder: "/n", Hash: "a"}, []NewChunk{c})
			return err
		})
		if err == nil {
			t.Errorf("PutNote took terms %v, numbers %v, vocabulary %p", c.Terms, c.Nums, c.Vocab)
		}
	}
}

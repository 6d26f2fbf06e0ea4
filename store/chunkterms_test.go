package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// A commit writes each chunk's term record from its postings, term by
// term in id order (putChunkTerms): every record must list its chunk's
// terms by id ascending, each once with its frequencies summed, whatever
// order the chunk listed them in, numbered or not (a term listed twice),
// with chunks removed again in the same commit and over commits whose
// terms are partly new.
func TestChunkTermRecordsFromPostings(t *testing.T) {
	db := openTest(t)
	r := rand.New(rand.NewPCG(16, 4))
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("w%03d", r.IntN(1000))
	}
	want := map[uint64]map[string]uint32{}
	vocab, vnum := &Vocabulary{}, map[string]uint32{}
	note := 0
	for commit := range 4 {
		if err := db.Update(func(tx *Tx) error {
			var removed []string
			for range 30 {
				note++
				n := &Note{Path: fmt.Sprintf("/n/%d.md", note), Folder: "/n", Hash: fmt.Sprint(note)}
				var chunks []NewChunk
				var expect []map[string]uint32
				for range 1 + r.IntN(4) {
					numbered := r.IntN(2) == 0
					c := NewChunk{Chunk: Chunk{Text: "x", StartLine: 1, EndLine: 1}}
					if numbered {
						c.Vocab = vocab
					}
					freqs := map[string]uint32{}
					for range r.IntN(40) {
						w := words[r.IntN(len(words))]
						f := uint32(1 + r.IntN(3))
						if numbered && freqs[w] > 0 {
							continue // a Counter lists a term once
						}
						num, ok := vnum[w]
						if !ok {
							num = uint32(len(vnum))
							vnum[w] = num
						}
						if numbered {
							vocab.Name(num, w)
							c.Nums = append(c.Nums, TermNum{Num: num, Freq: f})
						} else {
							c.Terms = append(c.Terms, TermFreq{Term: w, Freq: f})
						}
						freqs[w] += f
					}
					chunks = append(chunks, c)
					expect = append(expect, freqs)
				}
				if _, err := tx.PutNote(n, chunks); err != nil {
					return err
				}
				for i, id := range n.Chunks {
					want[id] = expect[i]
				}
				if r.IntN(8) == 0 {
					removed = append(removed, n.Path)
					for _, id := range n.Chunks {
						delete(want, id)
					}
				}
			}
			for _, p := range removed {
				if _, err := tx.DeleteNote(p); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatalf("commit %d: %v", commit, err)
		}
	}
	if err := db.View(func(tx *Tx) error {
		for id, freqs := range want {
			got := map[string]uint32{}
			if err := tx.ChunkTerms(id, func(term string, freq uint32) {
				if got[term] != 0 {
					t.Errorf("chunk %d lists %s twice", id, term)
				}
				got[term] = freq
			}); err != nil {
				return err
			}
			if !maps.Equal(got, freqs) {
				t.Errorf("chunk %d: terms %v, want %v", id, got, freqs)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.checkLexicon(); err != nil {
		t.Error(err)
	}
}

package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// TestMigrateSchema2Lexicon writes a store as schema 2 did (postings keyed
// by term string with a length in every posting, chunk term records as
// strings and frequencies) over two spans of chunk ids, opens it, and
// finds every term's postings, lengths and document frequency as they were
// written, the schema 2 buckets gone, and a delete after the migration
// removing exactly its postings.
func TestMigrateSchema2Lexicon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	type chunk struct {
		id    uint64
		terms []TermFreq
	}
	var chunks []chunk
	for i := range 40 {
		id := uint64(1 + i*411) // reaches the second span (ids ≥ 8,192)
		terms := []TermFreq{{Term: "common", Freq: uint32(1 + i%3)}, {Term: fmt.Sprintf("only%d", i), Freq: 1}}
		if i%4 == 0 {
			terms = append(terms, TermFreq{Term: "fourth", Freq: 70000}) // a length past two bytes
		}
		chunks = append(chunks, chunk{id, terms})
	}
	want := map[string][]Posting{}
	if err := db.current.Load().Update(func(tx *bolt.Tx) error {
		for _, id := range []bucketID{bucketTerms, bucketTermNames, bucketLengths, bucketChunkTerms, bucketPostings} {
			if err := tx.DeleteBucket(bucketNames[id]); err != nil { // schema 2 had none of them
				return err
			}
		}
		ct, err := tx.CreateBucketIfNotExists(legacyChunkTerms)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(legacyPostings); err != nil {
			return err
		}
		for _, c := range chunks {
			var w recordWriter
			for _, tf := range c.terms {
				w.str(tf.Term)
				w.uint(uint64(tf.Freq))
			}
			if err := ct.Put(u64key(c.id), w.b); err != nil {
				return err
			}
			for _, tf := range c.terms {
				want[tf.Term] = append(want[tf.Term], Posting{Chunk: c.id, Freq: tf.Freq, Length: lengthOf(c.terms)})
			}
		}
		if err := tx.Bucket(bucketNames[bucketChunks]).SetSequence(chunks[len(chunks)-1].id); err != nil {
			return err
		}
		return tx.Bucket(bucketNames[bucketMeta]).Put(keySchema, binary.BigEndian.AppendUint64(nil, 2))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// memd checks a store before it opens it: a schema 2 one is sound.
	if v := Check(path); !v.OK {
		t.Fatalf("check of a schema 2 store: %+v", v)
	}
	// A migration stopped after its first span leaves a schema 2 store,
	// which the next Open migrates from the start.
	stop := errors.New("stopped")
	afterMigratedSpan = func() error { return stop }
	_, err = Open(path, Options{NoSync: true})
	afterMigratedSpan = nil
	if !errors.Is(err, stop) {
		t.Fatalf("open with the migration stopped after a span: %v", err)
	}
	if v := Check(path); !v.OK {
		t.Fatalf("check of a store whose migration stopped: %+v", v)
	}
	if db, err = Open(path, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if u := db.Upgraded(); u == nil || u.From != 2 || u.CompactErr != nil || u.After <= 0 || u.After > u.Before || u.After != db.Size() {
		t.Errorf("Upgraded after the migration: %+v (file %d bytes)", u, db.Size())
	}
	db.Close()
	if db, err = Open(path, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if u := db.Upgraded(); u != nil {
		t.Errorf("Upgraded on the open after the migration: %+v", u)
	}
	for term, w := range want {
		if got := postings(t, db, term); !slices.Equal(got, w) {
			t.Errorf("postings of %q after migration:\n%v\nwant\n%v", term, got, w)
		}
	}
	if err := db.View(func(tx *Tx) error {
		for _, name := range [][]byte{legacyChunkTerms, legacyPostings} {
			if tx.tx.Bucket(name) != nil {
				t.Errorf("schema 2 bucket %s survived the migration", name)
			}
		}
		got := map[string]uint32{}
		if err := tx.ChunkTerms(chunks[4].id, func(term string, freq uint32) { got[term] = freq }); err != nil {
			return err
		}
		if want := map[string]uint32{"common": 2, "only4": 1, "fourth": 70000}; !maps.Equal(got, want) {
			t.Errorf("ChunkTerms of chunk %d: %v, want %v", chunks[4].id, got, want)
		}
		if df := tx.DocFreq("common"); df != len(chunks) {
			t.Errorf("DocFreq(common) = %d, want %d", df, len(chunks))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	gone := chunks[3].id
	if err := db.Update(func(tx *Tx) error {
		l, err := tx.deleteChunk(gone, nil)
		if l != lengthOf(chunks[3].terms) {
			t.Errorf("deleteChunk returned length %d, want %d", l, lengthOf(chunks[3].terms))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := postings(t, db, "common"); len(got) != len(chunks)-1 || slices.ContainsFunc(got, func(p Posting) bool { return p.Chunk == gone }) {
		t.Errorf("postings of common after deleting chunk %d: %v", gone, got)
	}
	if got := postings(t, db, "only3"); len(got) != 0 {
		t.Errorf("postings of only3 after deleting its chunk: %v", got)
	}
}

func lengthOf(terms []TermFreq) uint32 { return (&NewChunk{Terms: terms}).termsLength() }

package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "memd.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func chunkOf(text string, terms ...string) NewChunk {
	counts := map[string]uint32{}
	for _, t := range terms {
		counts[t]++
	}
	var tfs []TermFreq
	for t, f := range counts {
		tfs = append(tfs, TermFreq{Term: t, Freq: f})
	}
	sort.Slice(tfs, func(i, j int) bool { return tfs[i].Term < tfs[j].Term })
	return NewChunk{Chunk: Chunk{Text: text, StartLine: 1, EndLine: 2}, Terms: tfs}
}

func put(t testing.TB, db *DB, path, hash string, chunks ...NewChunk) *Note {
	t.Helper()
	n := &Note{Path: path, Folder: filepath.Dir(path), Hash: hash, Chunker: "heuristic"}
	if err := db.Update(func(tx *Tx) error { _, err := tx.PutNote(n, chunks); return err }); err != nil {
		t.Fatal(err)
	}
	return n
}

func postings(t testing.TB, db *DB, term string) []Posting {
	t.Helper()
	var out []Posting
	if err := db.View(func(tx *Tx) error {
		var err error
		out, err = tx.Postings(term, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.current.Load().Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketNames[bucketMeta]).Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion+1))
	})
	db.Close()
	_, err = Open(path, Options{})
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("open newer schema: got %v, want ErrNewerSchema", err)
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Open(path, Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: got %v, want ErrLocked", err)
	}
}

func TestPutNoteReplacesEverything(t *testing.T) {
	db := openTest(t)
	first := put(t, db, "/n/a.md", "aa", chunkOf("one", "apple", "apple", "pear"), chunkOf("two", "pear"))
	if got := postings(t, db, "pear"); len(got) != 2 {
		t.Fatalf("pear postings %v, want 2", got)
	}
	n := &Note{Path: "/n/a.md", Folder: "/n", Hash: "bb", Chunker: "heuristic"}
	if err := db.Update(func(tx *Tx) error {
		replaced, err := tx.PutNote(n, []NewChunk{chunkOf("three", "plum")})
		if replaced == nil || replaced.Hash != "aa" || !slices.Equal(replaced.Chunks, first.Chunks) {
			t.Errorf("PutNote replaced %+v, want the first note (chunks %v)", replaced, first.Chunks)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := postings(t, db, "pear"); len(got) != 0 {
		t.Fatalf("old postings survived replace: %v", got)
	}
	got := postings(t, db, "plum")
	if len(got) != 1 || got[0].Chunk != n.Chunks[0] || got[0].Freq != 1 || got[0].Length != 1 {
		t.Fatalf("plum postings %+v", got)
	}
	db.View(func(tx *Tx) error {
		c := tx.Counts()
		if c.Notes != 1 || c.Chunks != 1 || c.Length != 1 {
			t.Errorf("counts %+v, want 1 note, 1 chunk, length 1", c)
		}
		if _, err := tx.Chunk(1); !errors.Is(err, ErrNotFound) {
			t.Errorf("old chunk 1 still readable: %v", err)
		}
		return nil
	})
}

// TestPostingsMatchBruteForce writes, replaces and deletes random notes over
// several transactions and compares every term's postings with a model.
// Now and then the chunk sequence jumps to just below the next posting
// block, so notes straddle block boundaries and edits reach older blocks.
func TestPostingsMatchBruteForce(t *testing.T) {
	db := openTest(t)
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	want := map[string]map[uint64]uint32{} // term -> chunk -> freq
	notes := map[string][]uint64{}
	for round := 0; round < 30; round++ {
		err := db.Update(func(tx *Tx) error {
			for i := 0; i < 20; i++ {
				path := fmt.Sprintf("/f/%d.md", rng.IntN(40))
				had := notes[path]
				for _, id := range had {
					for term := range want {
						delete(want[term], id)
					}
				}
				delete(notes, path)
				if rng.IntN(4) == 0 {
					old, err := tx.DeleteNote(path)
					if err != nil {
						return err
					}
					var got []uint64
					if old != nil {
						got = old.Chunks
					}
					if !slices.Equal(got, had) {
						t.Errorf("DeleteNote(%s) returned chunks %v, want %v", path, got, had)
					}
					continue
				}
				if rng.IntN(12) == 0 {
					last := tx.MaxChunkID()
					next := (last>>blockShift + 1) << blockShift
					if err := tx.bucket(bucketChunks).SetSequence(max(last, next-1-uint64(rng.IntN(3)))); err != nil {
						return err
					}
				}
				var chunks []NewChunk
				for c := rng.IntN(4); c >= 0; c-- {
					var terms []string
					for w := rng.IntN(6) + 1; w > 0; w-- {
						terms = append(terms, vocab[rng.IntN(len(vocab))])
					}
					chunks = append(chunks, chunkOf("x", terms...))
				}
				n := &Note{Path: path, Folder: "/f", Hash: fmt.Sprint(round, i)}
				if _, err := tx.PutNote(n, chunks); err != nil {
					return err
				}
				notes[path] = slices.Clone(n.Chunks)
				for ci, c := range chunks {
					for _, tf := range c.Terms {
						if want[tf.Term] == nil {
							want[tf.Term] = map[uint64]uint32{}
						}
						want[tf.Term][n.Chunks[ci]] = tf.Freq
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	blocks := map[uint64]bool{}
	for _, ids := range notes {
		for _, id := range ids {
			blocks[id>>blockShift] = true
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("stored chunks lie in %d posting blocks, want at least 5", len(blocks))
	}
	for _, term := range vocab {
		got := map[uint64]uint32{}
		for _, p := range postings(t, db, term) {
			got[p.Chunk] = p.Freq
		}
		if fmt.Sprint(got) != fmt.Sprint(want[term]) && !(len(got) == 0 && len(want[term]) == 0) {
			t.Errorf("term %s: got %v, want %v", term, got, want[term])
		}
	}
	db.View(func(tx *Tx) error {
		total := 0
		for _, ids := range notes {
			total += len(ids)
		}
		if c := tx.Counts(); c.Notes != len(notes) || c.Chunks != total {
			t.Errorf("counts %+v, want %d notes %d chunks", c, len(notes), total)
		}
		return nil
	})
}

func TestMoveNoteKeepsChunks(t *testing.T) {
	db := openTest(t)
	n := put(t, db, "/f/old.md", "abcd", chunkOf("hello", "hello"))
	err := db.Update(func(tx *Tx) error {
		if got := notesWithHash(t, tx, "abcd"); !slices.Equal(got, []string{"/f/old.md"}) {
			t.Errorf("NotesWithHash = %v", got)
		}
		old, err := tx.Note("/f/old.md")
		if err != nil {
			return err
		}
		replaced, err := tx.MoveNote(old, &Note{Path: "/f/new.md", Folder: "/f", Hash: "abcd"})
		if replaced != nil {
			t.Errorf("moving to a free path replaced %+v", replaced)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if _, err := tx.Note("/f/old.md"); !errors.Is(err, ErrNotFound) {
			t.Errorf("old path still stored")
		}
		if old, err := tx.LookupNote("/f/old.md"); old != nil || err != nil {
			t.Errorf("LookupNote of the old path = %+v, %v; want nil, nil", old, err)
		}
		m, err := tx.Note("/f/new.md")
		if err != nil || !slices.Equal(m.Chunks, n.Chunks) {
			t.Fatalf("moved note %+v, %v; want chunks %v", m, err, n.Chunks)
		}
		c, _ := tx.Chunk(n.Chunks[0])
		if c.Path != "/f/new.md" {
			t.Errorf("chunk path %s after move", c.Path)
		}
		if p, err := tx.ChunkPath(n.Chunks[0]); p != "/f/new.md" || err != nil {
			t.Errorf("ChunkPath after move = %q, %v", p, err)
		}
		if got := notesWithHash(t, tx, "abcd"); !slices.Equal(got, []string{"/f/new.md"}) {
			t.Errorf("NotesWithHash after move = %v", got)
		}
		return nil
	})
}

func TestJobsAreDurableAndDeduplicated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *Tx) error {
		tx.EnqueueJob("/f/a.md", "/f")
		tx.EnqueueJob("/f/b.md", "/f")
		return tx.EnqueueJob("/f/a.md", "/f")
	})
	db.Close()
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var jobs []Job
	db.View(func(tx *Tx) error {
		jobs, _ = tx.Jobs(10)
		if c := tx.Counts(); c.Pending != 2 {
			t.Errorf("pending %d, want 2", c.Pending)
		}
		return nil
	})
	if len(jobs) != 2 || jobs[0].Path != "/f/a.md" || jobs[1].Path != "/f/b.md" {
		t.Fatalf("jobs after reopen: %+v", jobs)
	}
	db.Update(func(tx *Tx) error {
		if err := tx.RetryJob(jobs[0]); err != nil {
			return err
		}
		return tx.FinishJob(jobs[1])
	})
	db.View(func(tx *Tx) error {
		left, _ := tx.Jobs(10)
		if len(left) != 1 || left[0].Path != "/f/a.md" || left[0].Attempts != 1 {
			t.Errorf("after retry+finish: %+v", left)
		}
		if c := tx.Counts(); c.Pending != 1 {
			t.Errorf("pending %d, want 1", c.Pending)
		}
		return nil
	})
}

func TestFinishKeepsNewerJobForSamePath(t *testing.T) {
	db := openTest(t)
	var old Job
	db.Update(func(tx *Tx) error {
		tx.EnqueueJob("/f/a.md", "/f")
		j, _ := tx.Jobs(1)
		old = j[0]
		return nil
	})
	db.Update(func(tx *Tx) error {
		if err := tx.FinishJob(old); err != nil {
			return err
		}
		return tx.EnqueueJob("/f/a.md", "/f")
	})
	db.Update(func(tx *Tx) error { return tx.FinishJob(old) })
	db.View(func(tx *Tx) error {
		if left, _ := tx.Jobs(10); len(left) != 1 {
			t.Errorf("newer job lost: %+v", left)
		}
		return nil
	})
}

func BenchmarkPutNotes(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	for b.Loop() {
		b.StopTimer()
		db := openTest(b)
		b.StartTimer()
		db.Update(func(tx *Tx) error {
			for i := 0; i < 1000; i++ {
				var terms []string
				for w := 0; w < 200; w++ {
					terms = append(terms, vocab[int(rng.ExpFloat64()*2000)%len(vocab)])
				}
				tx.PutNote(&Note{Path: fmt.Sprintf("/f/%d.md", i), Hash: fmt.Sprint(i)}, []NewChunk{chunkOf("t", terms...)})
			}
			return nil
		})
	}
}

func TestTouchNoteAndSkipLookup(t *testing.T) {
	db := openTest(t)
	n := put(t, db, "/f/a.md", "aa", chunkOf("one", "apple"))
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	err := db.Update(func(tx *Tx) error {
		stored, err := tx.Note("/f/a.md")
		if err != nil {
			return err
		}
		if err := tx.TouchNote(stored, 99, when); err != nil {
			return err
		}
		return tx.PutSkip(Skip{Path: "/f/b.bin", Reason: "binary"})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		got, _ := tx.Note("/f/a.md")
		if got.Size != 99 || !got.ModTime.Equal(when) || !slices.Equal(got.Chunks, n.Chunks) {
			t.Errorf("touched note %+v", got)
		}
		if s, err := tx.Skip("/f/b.bin"); err != nil || s.Reason != "binary" {
			t.Errorf("Skip = %+v, %v", s, err)
		}
		if _, err := tx.Skip("/f/none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Skip of unknown path: %v", err)
		}
		return nil
	})
}

// dump returns every key and value of every bucket, nested ones included.
func dump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(prefix string, b *bolt.Bucket) error
	walk = func(prefix string, b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			name := prefix + "/" + string(k)
			if v == nil {
				return walk(name, b.Bucket(k))
			}
			out[name] = string(v)
			return nil
		})
	}
	if err := db.current.Load().View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(string(name), b) })
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeleteNotesUnderLeavesStoreAsBefore writes notes under a prefix,
// with vectors and terms shared with other notes, and deletes them: every
// bucket holds what it held before, byte for byte.
func TestDeleteNotesUnderLeavesStoreAsBefore(t *testing.T) {
	db := openTest(t)
	putVectors := func(n *Note) {
		t.Helper()
		if err := db.Update(func(tx *Tx) error {
			for _, id := range n.Chunks {
				if err := tx.PutVector("fp", id, []float32{1, float32(id)}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/a/x.md", "/a/y.md", "/b.md", "/bb/z.md"} {
		putVectors(put(t, db, p, "aa"+fmt.Sprintf("%02x", len(p)), chunkOf("t", "apple", "pear"), chunkOf("u", "plum")))
	}
	before := dump(t, db)

	var want []*Note
	for i := range 30 {
		n := put(t, db, fmt.Sprintf("/b/%02d.md", i), fmt.Sprintf("bb%02x", i),
			chunkOf("v", "apple", fmt.Sprintf("w%d", i)), chunkOf("w", "pear", "pear"))
		putVectors(n)
		want = append(want, n)
	}
	var got []*Note
	if err := db.Update(func(tx *Tx) error {
		return tx.DeleteNotesUnder("/b/", func(n *Note) { got = append(got, n) })
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("DeleteNotesUnder removed %d notes, want %d", len(got), len(want))
	}
	for i, n := range got {
		if n.Path != want[i].Path || !slices.Equal(n.Chunks, want[i].Chunks) {
			t.Errorf("removed note %d: %s %v, want %s %v", i, n.Path, n.Chunks, want[i].Path, want[i].Chunks)
		}
	}
	after := dump(t, db)
	for k, v := range after {
		// A term keeps its id once given (postings.go): the term
		// dictionary alone may have gained entries.
		if _, ok := before[k]; !ok && (strings.HasPrefix(k, "terms/") || strings.HasPrefix(k, "termnames/")) {
			continue
		}
		if w, ok := before[k]; !ok || w != v {
			t.Errorf("%q: %x after, %x (%v) before", k, v, w, ok)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%q is gone", k)
		}
	}
}

// A note record whose own path names another note (a damaged record) is
// deleted by the key it is stored under: the other note stays whole.
func TestDeleteNoteByKeyNotRecordPath(t *testing.T) {
	db := openTest(t)
	a := put(t, db, "/v/a.md", "aa", chunkOf("one", "alpha"))
	b := put(t, db, "/v/b.md", "bb", chunkOf("two", "beta"))
	liar := *a
	liar.Path = b.Path
	if err := db.current.Load().Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketNames[bucketNotes]).Put([]byte(a.Path), encodeNote(nil, &liar))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { _, err := tx.DeleteNote(a.Path); return err }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if n, _ := tx.LookupNote(a.Path); n != nil {
			t.Errorf("%s still stored", a.Path)
		}
		n, err := tx.LookupNote(b.Path)
		if n == nil || err != nil || len(n.Chunks) != 1 || n.Chunks[0] != b.Chunks[0] {
			t.Errorf("%s after deleting %s: %+v, %v", b.Path, a.Path, n, err)
		}
		if got := notesWithHash(t, tx, "bb"); len(got) != 1 || got[0] != b.Path {
			t.Errorf("hash index of %s: %v", b.Path, got)
		}
		return nil
	})
	if got := postings(t, db, "beta"); len(got) != 1 {
		t.Errorf("postings of beta: %v", got)
	}
}

// reopen closes db and opens the store at path again, closed when the
// test ends.
func reopen(t *testing.T, db *DB, path string) *DB {
	t.Helper()
	db.Close()
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

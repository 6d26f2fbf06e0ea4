package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// notesWithHash is the paths of tx.NotesWithHash(hash).
func notesWithHash(t testing.TB, tx *Tx, hash string) []string {
	t.Helper()
	var paths []string
	for _, n := range tx.NotesWithHash(hash) {
		paths = append(paths, n.Path)
	}
	return paths
}

var errRollBack = errors.New("roll back")

// dropHashIndex makes the next NotesWithHash build the index again.
func dropHashIndex(db *DB) {
	db.hashes.mu.Lock()
	defer db.hashes.mu.Unlock()
	db.hashes.paths = nil
}

// indexState is what the built index holds: hash → sorted paths; nil when
// it is not built.
func indexState(db *DB) map[string][]string {
	db.hashes.mu.Lock()
	defer db.hashes.mu.Unlock()
	if db.hashes.paths == nil {
		return nil
	}
	out := map[string][]string{}
	for i := range 4 {
		h := fmt.Sprint("h", i)
		if joined := db.hashes.paths[hashKey(h)]; joined != "" {
			out[h] = slices.Sorted(strings.SplitSeq(joined, "\x00"))
		}
	}
	if len(out) != len(db.hashes.paths) {
		out["?"] = []string{fmt.Sprint(len(db.hashes.paths), " keys")}
	}
	return out
}

// A random run of puts, deletes and moves, in transactions committed or
// rolled back, with the index built at random points (dropped, compacted,
// queried in a write transaction): after each, the index and NotesWithHash
// agree with a model of the notes, and a rolled-back transaction leaves
// nothing behind.
func TestHashIndexFollowsCommits(t *testing.T) {
	db := openTest(t)
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[string]string{} // path → hash
	paths := []string{"/v/a.md", "/v/b.md", "/v/c.md", "/v/d.md", "/v/e.md"}
	want := func(m map[string]string) map[string][]string {
		out := map[string][]string{}
		for _, p := range slices.Sorted(maps.Keys(m)) {
			out[m[p]] = append(out[m[p]], p)
		}
		return out
	}
	for step := range 400 {
		next := maps.Clone(model)
		rollBack := rng.IntN(4) == 0
		err := db.Update(func(tx *Tx) error {
			for range 1 + rng.IntN(4) {
				p := paths[rng.IntN(len(paths))]
				var err error
				switch rng.IntN(3) {
				case 0:
					h := fmt.Sprint("h", rng.IntN(4))
					_, err = tx.PutNote(&Note{Path: p, Folder: "/v", Hash: h}, nil)
					next[p] = h
				case 1:
					_, err = tx.DeleteNote(p)
					delete(next, p)
				case 2:
					old, _ := tx.LookupNote(p)
					to := paths[rng.IntN(len(paths))]
					if old == nil || to == p {
						continue
					}
					_, err = tx.MoveNote(old, &Note{Path: to, Folder: "/v", Hash: old.Hash})
					delete(next, p)
					next[to] = old.Hash
				}
				if err != nil {
					return err
				}
			}
			if rng.IntN(5) == 0 {
				h := fmt.Sprint("h", rng.IntN(4))
				if got := notesWithHash(t, tx, h); !slices.Equal(got, want(next)[h]) {
					t.Errorf("step %d: NotesWithHash(%s) in the write = %v, want %v", step, h, got, want(next)[h])
				}
			}
			if rollBack {
				return errRollBack
			}
			return nil
		})
		if rollBack != (err != nil) {
			t.Fatalf("step %d: %v", step, err)
		}
		if !rollBack {
			model = next
		}
		switch rng.IntN(10) {
		case 0:
			dropHashIndex(db)
		case 1:
			if _, _, err := db.Compact(); err != nil {
				t.Fatal(err)
			}
		}
		if got := indexState(db); got != nil && !maps.EqualFunc(got, want(model), slices.Equal) {
			t.Fatalf("step %d: index %v, want %v", step, got, want(model))
		}
		db.View(func(tx *Tx) error {
			for i := range 4 {
				h := fmt.Sprint("h", i)
				if got := notesWithHash(t, tx, h); !slices.Equal(got, want(model)[h]) {
					t.Errorf("step %d: NotesWithHash(%s) = %v, want %v", step, h, got, want(model)[h])
				}
			}
			return nil
		})
	}
}

// A store an older memd wrote, with its hashes bucket, loses the bucket
// at Open, and its notes are found by hash from their records; a note
// record of schema 1 (JSON) is read too.
func TestOpenDropsHashesBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memd.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "/v/a.md", "aa")
	err = db.current.Load().Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(legacyHashes)
		if err != nil {
			return err
		}
		if err := b.Put([]byte("\xaa/v/a.md"), nil); err != nil {
			return err
		}
		nj, err := json.Marshal(Note{Path: "/v/b.md", Hash: "aa"})
		if err != nil {
			return err
		}
		return tx.Bucket(bucketNames[bucketNotes]).Put([]byte("/v/b.md"), nj)
	})
	if err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, path)
	db.View(func(tx *Tx) error {
		if tx.tx.Bucket(legacyHashes) != nil {
			t.Error("the hashes bucket is still there")
		}
		if got := notesWithHash(t, tx, "aa"); !slices.Equal(got, []string{"/v/a.md", "/v/b.md"}) {
			t.Errorf("NotesWithHash(aa) = %v", got)
		}
		return nil
	})
}

// Readers query while commits add notes and move others: a reader finds
// every note its snapshot holds that no commit has since moved, whether
// the index is newer than its snapshot or older (between a commit and its
// OnCommit), and only notes its snapshot holds.
func TestNotesWithHashConcurrentCommits(t *testing.T) {
	db := openTest(t)
	const commits = 300
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(stop)
		for i := range commits {
			err := db.Update(func(tx *Tx) error {
				if _, err := tx.PutNote(&Note{Path: fmt.Sprintf("/v/kept%03d.md", i), Folder: "/v", Hash: fmt.Sprint("k", i)}, nil); err != nil {
					return err
				}
				from, to := fmt.Sprintf("/v/moved%d.md", i%2), fmt.Sprintf("/v/moved%d.md", (i+1)%2)
				if old, _ := tx.LookupNote(from); old != nil {
					_, err := tx.MoveNote(old, &Note{Path: to, Folder: "/v", Hash: "m"})
					return err
				}
				_, err := tx.PutNote(&Note{Path: to, Folder: "/v", Hash: "m"}, nil)
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
			if i%50 == 0 {
				dropHashIndex(db)
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				db.View(func(tx *Tx) error {
					kept := tx.CountNotes("/v/kept")
					if kept > 0 {
						h := fmt.Sprint("k", kept-1)
						if got := notesWithHash(t, tx, h); len(got) != 1 {
							t.Errorf("snapshot of %d kept notes: NotesWithHash(%s) = %v", kept, h, got)
						}
					}
					for _, n := range tx.NotesWithHash("m") {
						if stored, _ := tx.LookupNote(n.Path); stored == nil || stored.Hash != "m" {
							t.Errorf("NotesWithHash(m) has %s, which the snapshot does not hold", n.Path)
						}
					}
					return nil
				})
			}
		}()
	}
	wg.Wait()
}

// BenchmarkHashIndexBuild is the first NotesWithHash on a store of 100k
// notes: the scan of the notes that builds the index. heap-B is what the
// built index holds.
func BenchmarkHashIndexBuild(b *testing.B) {
	db := notesStore(b, 100_000)
	var before, after runtime.MemStats
	b.ReportAllocs()
	for b.Loop() {
		dropHashIndex(db)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		db.View(func(tx *Tx) error {
			tx.NotesWithHash("none")
			return nil
		})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "heap-B")
}

// BenchmarkHashIndexEdit is one note's put, and NotesWithHash of it, once
// the index of 100k notes is built.
func BenchmarkHashIndexEdit(b *testing.B) {
	db := notesStore(b, 100_000)
	db.View(func(tx *Tx) error { tx.NotesWithHash("none"); return nil })
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		n := &Note{Path: notePath(i % 100_000), Folder: "/v", Hash: fmt.Sprintf("%064x", i+1<<40)}
		if err := db.Update(func(tx *Tx) error { _, err := tx.PutNote(n, nil); return err }); err != nil {
			b.Fatal(err)
		}
		db.View(func(tx *Tx) error {
			if len(tx.NotesWithHash(n.Hash)) != 1 {
				b.Fatal("edit not found")
			}
			return nil
		})
	}
}

// notesStore is a store of count notes of distinct hashes, with paths as
// long as the generated corpus's (32 bytes).
func notesStore(b *testing.B, count int) *DB {
	db := openTest(b)
	for start := 0; start < count; start += 2048 {
		err := db.Update(func(tx *Tx) error {
			for i := start; i < min(start+2048, count); i++ {
				n := &Note{Path: notePath(i), Folder: "/v", Hash: fmt.Sprintf("%064x", i), Title: "a note of the corpus"}
				if _, err := tx.PutNote(n, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func notePath(i int) string { return fmt.Sprintf("/tmp/w/gen100k/f%03d/note%05d.md", i/1000, i) }

package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const (
	footer = "00000000000000f0"
	own1   = "0000000000000001"
	own2   = "0000000000000002"
)

func blockNote(path string, blocks ...string) *Note {
	return &Note{Path: path, Folder: "/v", Hash: "ab", Chunker: "heuristic", Blocks: blocks}
}

// changes runs fn in a transaction and returns the block changes it made
// (the crossings of 3), in id order.
func changes(t *testing.T, db *DB, fn func(tx *Tx) error) []BlockChange {
	t.Helper()
	var out []BlockChange
	if err := db.Update(func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		out, err = tx.BlockCrossings(3)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b BlockChange) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func holders(t *testing.T, db *DB, id string) int {
	t.Helper()
	var counts []int
	if err := db.View(func(tx *Tx) error {
		var err error
		counts, err = tx.BlockHoldersOf("/v", []string{id})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return counts[0]
}

func TestBlockHoldersFollowNotes(t *testing.T) {
	db := openTest(t)
	got := changes(t, db, func(tx *Tx) error {
		for _, p := range []string{"/v/a.md", "/v/b.md", "/v/sub/c.md"} {
			if _, err := tx.PutNote(blockNote(p, own1, footer), nil); err != nil {
				return err
			}
		}
		_, err := tx.PutNote(blockNote("/v/d.md", own2), nil)
		return err
	})
	want := []BlockChange{{"/v", own1, 0, 3}, {"/v", footer, 0, 3}} // own2: 0 to 1 crosses nothing
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	if n := holders(t, db, footer); n != 3 {
		t.Fatalf("footer held by %d notes", n)
	}

	// The same note written again (the model stages' rewrite) changes no count.
	if got := changes(t, db, func(tx *Tx) error { _, err := tx.PutNote(blockNote("/v/a.md", own1, footer), nil); return err }); len(got) != 0 {
		t.Fatalf("rewrite changed %v", got)
	}
	// An edit that drops the footer, a removal and a rename.
	got = changes(t, db, func(tx *Tx) error {
		if _, err := tx.PutNote(blockNote("/v/a.md", own1), nil); err != nil {
			return err
		}
		if _, err := tx.DeleteNote("/v/b.md"); err != nil {
			return err
		}
		old, err := tx.Note("/v/sub/c.md")
		if err != nil {
			return err
		}
		_, err = tx.MoveNote(old, blockNote("/v/e.md", own1, footer))
		return err
	})
	if want := []BlockChange{{"/v", own1, 3, 2}, {"/v", footer, 3, 1}}; !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	if n := holders(t, db, footer); n != 1 {
		t.Fatalf("footer held by %d notes after edits", n)
	}
	if n := holders(t, db, own1); n != 2 {
		t.Fatalf("own1 held by %d notes after edits", n)
	}
}

func TestBlockHoldersAreCountedPerFolder(t *testing.T) {
	db := openTest(t)
	changes(t, db, func(tx *Tx) error {
		n := blockNote("/w/a.md", footer)
		n.Folder = "/w"
		_, err := tx.PutNote(n, nil)
		return err
	})
	if n := holders(t, db, footer); n != 0 {
		t.Fatalf("a block of folder /w counts %d in /v", n)
	}
	// Removing the folder's notes leaves no holder behind.
	changes(t, db, func(tx *Tx) error { return tx.DeleteNotesUnder("/w/", func(*Note) {}) })
	db.View(func(tx *Tx) error {
		if n, err := tx.BlockHoldersOf("/w", []string{footer}); err != nil || n[0] != 0 {
			t.Fatalf("removed folder still holds %v (%v)", n, err)
		}
		return nil
	})
}

// Many blocks of one shard, counted up and down in one transaction and
// across several, keep each its own count.
func TestBlockCountsShareShards(t *testing.T) {
	db := openTest(t)
	var ids []string
	for i := range 300 {
		ids = append(ids, fmt.Sprintf("00%02x%012x", i%3, i)) // three shards' worth
	}
	for round := range 3 {
		changes(t, db, func(tx *Tx) error {
			for i, id := range ids {
				if i%(round+1) == 0 {
					n := blockNote(fmt.Sprintf("/v/%d-%d.md", round, i), id)
					if _, err := tx.PutNote(n, nil); err != nil {
						return err
					}
					// A count read mid-transaction sees what came before it.
					got, err := tx.BlockHoldersOf("/v", []string{id})
					if err != nil {
						return err
					}
					if i == 150 && got[0] != round+1 {
						return fmt.Errorf("mid-transaction count of %s = %d", id, got[0])
					}
				}
			}
			return nil
		})
	}
	var all []int
	if err := db.View(func(tx *Tx) error {
		var err error
		all, err = tx.BlockHoldersOf("/v", append(ids, "not an id"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		want := 1
		if i%2 == 0 {
			want++
		}
		if i%3 == 0 {
			want++
		}
		if got := holders(t, db, id); got != want || all[i] != want {
			t.Fatalf("block %d held by %d notes (%d read with the others), want %d", i, got, all[i], want)
		}
	}
	if all[len(ids)] != 0 {
		t.Errorf("an id parse would not make is held by %d notes", all[len(ids)])
	}
}

// A store whose notes came before the counts gets them from the records.
func TestRecountBlocks(t *testing.T) {
	db := openTest(t)
	changes(t, db, func(tx *Tx) error {
		for _, p := range []string{"/v/a.md", "/v/b.md"} {
			if _, err := tx.PutNote(blockNote(p, own1, footer), nil); err != nil {
				return err
			}
		}
		return nil
	})
	changes(t, db, func(tx *Tx) error { // as a memd before the counts left it
		return tx.bucket(bucketBlocks).DeleteBucket([]byte("/v"))
	})
	if n := holders(t, db, footer); n != 0 {
		t.Fatalf("footer held by %d notes with no counts", n)
	}
	changes(t, db, func(tx *Tx) error { return tx.RecountBlocks() })
	if n := holders(t, db, footer); n != 2 {
		t.Fatalf("footer held by %d notes after the recount, want 2", n)
	}
	// Recounting twice counts nothing twice.
	changes(t, db, func(tx *Tx) error { return tx.RecountBlocks() })
	if n := holders(t, db, own1); n != 2 {
		t.Fatalf("own1 held by %d notes after a second recount, want 2", n)
	}
}

// TestForEachNoteBlocksReadsOnlyWanted: the notes want refuses are not
// handed to fn, and the rest come in path order under the prefix, with
// their folder and blocks.
func TestForEachNoteBlocksReadsOnlyWanted(t *testing.T) {
	db := openTest(t)
	err := db.Update(func(tx *Tx) error {
		for _, p := range []string{"/v/a.md", "/v/b.md", "/v/c.md", "/w/d.md"} {
			if _, err := tx.PutNote(blockNote(p, "x"), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var asked, got []string
	err = db.View(func(tx *Tx) error {
		want := func(path []byte) bool { asked = append(asked, string(path)); return string(path) != "/v/b.md" }
		return tx.ForEachNoteBlocks("/v/", want, func(path, folder []byte, blocks [][]byte) error {
			if string(folder) != "/v" || len(blocks) != 1 || string(blocks[0]) != "x" {
				t.Errorf("%s: folder %q, blocks %q", path, folder, blocks)
			}
			got = append(got, string(path))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"/v/a.md", "/v/b.md", "/v/c.md"}) || !slices.Equal(got, []string{"/v/a.md", "/v/c.md"}) {
		t.Fatalf("asked %v, visited %v", asked, got)
	}
}

// A count read in a transaction whose own count changes cannot be written
// fails, instead of answering with counts that leave those changes out
// (it once answered zeros). A folder's counts are a bucket named by the
// folder, which bbolt refuses for an empty name.
func TestBlockHoldersOfSaysWhenPendingCountsFail(t *testing.T) {
	db := openTest(t)
	err := db.Update(func(tx *Tx) error {
		n := blockNote("/v/a.md", own1)
		n.Folder = ""
		if _, err := tx.PutNote(n, nil); err != nil {
			return err
		}
		counts, err := tx.BlockHoldersOf("", []string{own1})
		if err == nil {
			t.Errorf("counts %v and no error, though the note's own count could not be written", counts)
		}
		return err
	})
	if err == nil {
		t.Fatal("the transaction committed counts it could not write")
	}
}

// sortKeyed orders ids by id, each with its place, short lists and long.
func TestSortKeyed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 5, 255, 256, 3000} {
		ids := make([]keyedID, n)
		for i := range ids {
			ids[i] = keyedID{r.Uint64() >> (r.IntN(4) * 16), int32(i)}
		}
		want := slices.Clone(ids)
		slices.SortStableFunc(want, func(a, b keyedID) int { return cmp.Compare(a.id, b.id) })
		if got := sortKeyed(slices.Clone(ids)); !slices.EqualFunc(got, want, func(a, b keyedID) bool { return a.id == b.id }) {
			t.Errorf("%d ids: not sorted", n)
		} else {
			seen := map[int32]bool{}
			for _, k := range got {
				if seen[k.at] || ids[k.at] != k {
					t.Fatalf("%d ids: %v lost its place", n, k)
				}
				seen[k.at] = true
			}
		}
	}
}

// decodeBlockID reads 16 hex digits of either case as hex.Decode would,
// and refuses anything else.
func TestDecodeBlockID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		v := r.Uint64()
		for _, id := range []string{fmt.Sprintf("%016x", v), fmt.Sprintf("%016X", v)} {
			if got, ok := decodeBlockID(id); !ok || got != v {
				t.Fatalf("%s: %x %v, want %x", id, got, ok, v)
			}
		}
	}
	for _, id := range []string{"", "0123", "000000000000000g", "00000000000000 1", "0000000000000000a", "éééééééé"} {
		if _, ok := decodeBlockID(id); ok {
			t.Errorf("%q decoded as a block id", id)
		}
	}
}

package store

import (
	"slices"
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

// changes runs fn in a transaction and returns the block changes it made.
func changes(t *testing.T, db *DB, fn func(tx *Tx) error) []BlockChange {
	t.Helper()
	var out []BlockChange
	if err := db.Update(func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		out = tx.BlockChanges()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func holders(t *testing.T, db *DB, id string, limit int) (int, []string) {
	t.Helper()
	var n int
	var paths []string
	db.View(func(tx *Tx) error {
		n = tx.BlockHolders("/v", id, limit)
		tx.ForEachBlockHolder("/v", id, func(p string) bool { paths = append(paths, p); return true })
		return nil
	})
	return n, paths
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
	want := []BlockChange{{"/v", own1, 3}, {"/v", own2, 1}, {"/v", footer, 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	if n, paths := holders(t, db, footer, 10); n != 3 || !slices.Equal(paths, []string{"/v/a.md", "/v/b.md", "/v/sub/c.md"}) {
		t.Fatalf("footer held by %d %v", n, paths)
	}
	if n, _ := holders(t, db, footer, 2); n != 2 {
		t.Fatalf("count with limit 2 = %d", n)
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
	if want := []BlockChange{{"/v", own1, -1}, {"/v", footer, -2}}; !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	if n, paths := holders(t, db, footer, 10); n != 1 || !slices.Equal(paths, []string{"/v/e.md"}) {
		t.Fatalf("footer held by %d %v after edits", n, paths)
	}
	if n, paths := holders(t, db, own1, 10); n != 2 || !slices.Equal(paths, []string{"/v/a.md", "/v/e.md"}) {
		t.Fatalf("own1 held by %d %v", n, paths)
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
	if n, _ := holders(t, db, footer, 10); n != 0 {
		t.Fatalf("a block of folder /w counts %d in /v", n)
	}
	// Removing the folder's notes leaves no holder behind.
	changes(t, db, func(tx *Tx) error { return tx.DeleteNotesUnder("/w/", func(*Note) {}) })
	db.View(func(tx *Tx) error {
		if n := tx.BlockHolders("/w", footer, 10); n != 0 {
			t.Fatalf("removed folder still holds %d", n)
		}
		return nil
	})
}

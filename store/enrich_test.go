package store

import (
	"slices"
	"testing"
)

// TestEnrichQueue checks that a mark is queued once, moves with a rename,
// goes with its note, and is counted.
func TestEnrichQueue(t *testing.T) {
	db := openTest(t)
	for _, p := range []string{"/n/a.md", "/n/b.md", "/n/c.md"} {
		put(t, db, p, "aa"+p[3:4], chunkOf("text", "text"))
	}
	queue := func() (paths []string, counted int) {
		_ = db.View(func(tx *Tx) error {
			paths, counted = tx.EnrichQueue("", 10), tx.Counts().Enriching
			return nil
		})
		return
	}
	err := db.Update(func(tx *Tx) error {
		for _, p := range []string{"/n/a.md", "/n/b.md", "/n/c.md", "/n/a.md"} {
			if err := tx.QueueEnrich(p); err != nil {
				return err
			}
		}
		if got := tx.EnrichQueue("/n/a.md", 10); !slices.Equal(got, []string{"/n/b.md", "/n/c.md"}) {
			t.Errorf("queue after a.md = %v", got)
		}
		old, _ := tx.LookupNote("/n/b.md")
		moved := *old
		moved.Path = "/n/d.md"
		if _, err := tx.MoveNote(old, &moved); err != nil {
			return err
		}
		_, err := tx.DeleteNote("/n/c.md")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if paths, n := queue(); !slices.Equal(paths, []string{"/n/a.md", "/n/d.md"}) || n != 2 {
		t.Errorf("queue %v (counted %d), want a.md and the renamed d.md", paths, n)
	}
	put(t, db, "/n/a.md", "ff", chunkOf("new", "new")) // PutNote replaces the note: its mark goes
	if paths, n := queue(); !slices.Equal(paths, []string{"/n/d.md"}) || n != 1 {
		t.Errorf("queue %v (counted %d) after a.md was rewritten", paths, n)
	}
}

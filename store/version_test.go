package store

import "testing"

// A Version changes with every write, and with a compaction, whose new
// file counts its transactions from the start again.
func TestVersion(t *testing.T) {
	db := openTest(t)
	version := func() Version {
		var v Version
		if err := db.View(func(tx *Tx) error { v = tx.Version(); return nil }); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version()
	if version() != v0 {
		t.Fatal("two reads with no write between see different versions")
	}
	put(t, db, "/v/a.md", "aa", chunkOf("one"))
	v1 := version()
	if v1 == v0 {
		t.Fatal("a write left the version as it was")
	}
	var inWrite Version
	if err := db.Update(func(tx *Tx) error { inWrite = tx.Version(); return nil }); err != nil {
		t.Fatal(err)
	}
	if inWrite != v1 {
		t.Errorf("a write transaction sees %+v, want the version before it, %+v", inWrite, v1)
	}
	seen := map[Version]bool{v0: true, v1: true, version(): true}
	if _, _, err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if v := version(); seen[v] {
			t.Fatalf("after a compaction, version %+v was seen before it", v)
		}
		put(t, db, "/v/b.md", "bb", chunkOf("two"))
	}
}

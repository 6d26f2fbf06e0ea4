package store

import (
	"bytes"
	"fmt"
	"testing"
)

// TestArenaRecordsShareNoBytes cuts records of many sizes from an arena,
// some outgrowing their room, some larger than a slab, over two
// transactions' worth with a reset between, and checks that no record
// was overwritten by a later one: bbolt writes them only at commit.
func TestArenaRecordsShareNoBytes(t *testing.T) {
	var a valueArena
	for round := range 2 {
		var recs [][]byte
		var want [][]byte
		for i := range 3000 {
			size := (i * 7919) % 3000
			if i%500 == 0 {
				size = arenaSlab / 2 // bytes of its own
			}
			room := size
			if i%3 == 0 {
				room = size / 2 // the record outgrows it
			}
			rec := a.room(room)
			for j := range size {
				rec = append(rec, byte(i+j+round))
			}
			recs = append(recs, a.claim(rec))
			want = append(want, bytes.Clone(rec))
		}
		for i := range recs {
			if !bytes.Equal(recs[i], want[i]) {
				t.Fatalf("round %d: record %d was overwritten", round, i)
			}
		}
		if round == 0 {
			first := slabBytes(&a)
			if first > 2*4500000 {
				t.Errorf("slabs of %d bytes for 4.5 MB of records", first)
			}
			a.reset()
			defer func() {
				if again := slabBytes(&a); again != first {
					t.Errorf("after a reset the same records took slabs of %d bytes, not %d", again, first)
				}
			}()
		}
	}
}

func slabBytes(a *valueArena) int {
	n := 0
	for _, s := range a.slabs {
		n += cap(s)
	}
	return n
}

// TestBurstRecordsReadBack writes notes over several commits of one
// store, so the later commits cut their records from the first's slabs,
// and reads every note and chunk back.
func TestBurstRecordsReadBack(t *testing.T) {
	db := openTest(t)
	text := func(i int) string {
		return fmt.Sprintf("chunk text %d %s", i, bytes.Repeat([]byte{'a' + byte(i%26)}, i%700))
	}
	for c := range 5 {
		if err := db.Update(func(tx *Tx) error {
			for i := c * 100; i < (c+1)*100; i++ {
				n := &Note{Path: fmt.Sprintf("/f/%04d.md", i), Folder: "/f", Hash: fmt.Sprintf("%064x", i), Title: fmt.Sprint(i)}
				if _, err := tx.PutNote(n, []NewChunk{chunkOf(text(i), "w", fmt.Sprint(i))}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	db.View(func(tx *Tx) error {
		for i := range 500 {
			n, err := tx.Note(fmt.Sprintf("/f/%04d.md", i))
			if err != nil || n.Title != fmt.Sprint(i) || len(n.Chunks) != 1 {
				t.Fatalf("note %d: %+v, %v", i, n, err)
			}
			c, err := tx.Chunk(n.Chunks[0])
			if err != nil || c.Text != text(i) {
				t.Fatalf("chunk of note %d: %v", i, err)
			}
		}
		return nil
	})
}

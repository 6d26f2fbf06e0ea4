package store

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBlockCountsEdit is the block counting of one note's edit (ten
// blocks out, ten in, read as boilerplate foresight and settle read them)
// committed into a folder whose counts hold a million blocks, the 100k
// generated notes' number.
func BenchmarkBlockCountsEdit(b *testing.B) {
	db := openTest(b)
	rng := rand.New(rand.NewPCG(7, 8))
	ids := randomBlockIDs(rng, 1_000_000)
	for at := 0; at < len(ids); at += 20_000 {
		if err := db.Update(func(tx *Tx) error { tx.countBlocks("/v", ids[at:at+20_000], +1); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	note := make([]string, 10)
	for b.Loop() {
		if err := db.Update(func(tx *Tx) error {
			tx.countBlocks("/v", note, -1)
			for i := range note {
				note[i] = ids[rng.IntN(len(ids))]
			}
			if _, err := tx.BlockHoldersOf("/v", note); err != nil {
				return err
			}
			tx.countBlocks("/v", note, +1)
			_, err := tx.BlockCrossings(10)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

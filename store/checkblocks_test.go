package store

import (
	"errors"
	"testing"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// Check finds block counts that do not decode or sum below 0, and passes
// sound ones, base and runs.
func TestCheckBlocks(t *testing.T) {
	run := func(b *bolt.Bucket, seq byte, entries []byte) error {
		rb, err := b.CreateBucket([]byte{runPrefix, 0, 0, 0, 0, 0, 0, 0, seq})
		if err != nil {
			return err
		}
		return rb.Put([]byte{runValue}, entries)
	}
	cases := []struct {
		name  string
		write func(b *bolt.Bucket) error
		sound bool
	}{
		{"base and runs", func(b *bolt.Bucket) error {
			if err := b.Put(shardKey(7), appendEntry(appendEntry(nil, 7, 2), 9, 1)); err != nil {
				return err
			}
			return run(b, 0, appendEntry(appendEntry(nil, 7, -2), 1<<60, 3))
		}, true},
		{"a count of 0 in the base", func(b *bolt.Bucket) error {
			return b.Put(shardKey(7), appendEntry(nil, 7, 0))
		}, false},
		{"a block in another shard", func(b *bolt.Bucket) error {
			return b.Put(shardKey(7), appendEntry(nil, 1<<60, 1))
		}, false},
		{"a run out of order", func(b *bolt.Bucket) error {
			return run(b, 0, appendEntry(appendEntry(nil, 9, 1), 7, 1))
		}, false},
		{"a change of 0", func(b *bolt.Bucket) error { return run(b, 0, appendEntry(nil, 9, 0)) }, false},
		{"a count below 0", func(b *bolt.Bucket) error {
			if err := run(b, 0, appendEntry(nil, 9, 1)); err != nil {
				return err
			}
			return run(b, 1, appendEntry(nil, 9, -2))
		}, false},
		{"a stray key", func(b *bolt.Bucket) error { return b.Put([]byte("x"), nil) }, false},
		{"cut short", func(b *bolt.Bucket) error { return b.Put(shardKey(7), appendEntry(nil, 7, 1)[:11]) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openTest(t)
			if err := db.Update(func(tx *Tx) error {
				b, err := tx.bucket(bucketBlocks).CreateBucket([]byte("/v"))
				if err != nil {
					return err
				}
				return c.write(b)
			}); err != nil {
				t.Fatal(err)
			}
			err := db.checkBlocks()
			if c.sound && err != nil || !c.sound && !errors.Is(err, ErrDamaged) {
				t.Fatalf("check: %v", err)
			}
		})
	}
}

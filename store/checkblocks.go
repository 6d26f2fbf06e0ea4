package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// checkBlocks decodes every folder's block counts (blocktiers.go), which
// bbolt's check cannot judge: base shards under their shard's key with
// counts above 0, runs in buckets of their own with changes other than 0,
// entries in ascending order of id, and no block's count summing below 0.
// Its first finding is a DamageError.
func (db *DB) checkBlocks() error { return db.checkDecoded((*Tx).blocksProblem, "") }

var errFound = errors.New("found a problem")

func (t *Tx) blocksProblem() string {
	problem := ""
	blocks := t.bucket(bucketBlocks)
	blocks.ForEach(func(folder, _ []byte) error {
		b := blocks.Bucket(folder)
		if b == nil {
			problem = fmt.Sprintf("the block counts of %q are not a bucket", folder)
		} else if p := folderBlocksProblem(b); p != "" {
			problem = fmt.Sprintf("the block counts of %q: %s", folder, p)
		}
		if problem != "" {
			return errFound
		}
		return nil
	})
	return problem
}

func folderBlocksProblem(b *bolt.Bucket) string {
	var base []byte // the shards in key order, so in id order
	var parts [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case len(k) == 2 && v != nil && binary.BigEndian.Uint16(k) < blockShards:
			if p := entriesProblem(v, true); p != "" {
				return fmt.Sprintf("shard %x %s", k, p)
			}
			s := binary.BigEndian.Uint16(k)
			if shardOf(binary.BigEndian.Uint64(v)) != s || shardOf(binary.BigEndian.Uint64(v[len(v)-blockEntryBytes:])) != s {
				return fmt.Sprintf("shard %x holds a block of another shard", k)
			}
			base = append(base, v...)
		case len(k) == 9 && k[0] == runPrefix && v == nil:
			rc := b.Bucket(k).Cursor()
			rk, run := rc.First()
			if len(rk) != 1 || rk[0] != runValue || run == nil {
				return fmt.Sprintf("run %x holds no run", k)
			}
			if next, _ := rc.Next(); next != nil {
				return fmt.Sprintf("run %x holds more than its run", k)
			}
			if p := entriesProblem(run, false); p != "" {
				return fmt.Sprintf("run %x %s", k, p)
			}
			parts = append(parts, run)
		default:
			return fmt.Sprintf("key %x is neither a shard nor a run", k)
		}
	}
	sums := mergeEntries(nil, append(parts, base)...)
	for at := 0; at < len(sums); at += blockEntryBytes {
		if n := entryValue(sums[at:]); n < 0 {
			return fmt.Sprintf("block %016x is counted %d times", binary.BigEndian.Uint64(sums[at:]), n)
		}
	}
	return ""
}

// entriesProblem says what is wrong with run, entries of the base (counts)
// or of a run (changes), or "".
func entriesProblem(run []byte, base bool) string {
	if len(run) == 0 || len(run)%blockEntryBytes != 0 {
		return fmt.Sprintf("is %d bytes, not entries of %d", len(run), blockEntryBytes)
	}
	for at := 0; at < len(run); at += blockEntryBytes {
		if at > 0 && binary.BigEndian.Uint64(run[at:]) <= binary.BigEndian.Uint64(run[at-blockEntryBytes:]) {
			return fmt.Sprintf("has block %016x out of order", binary.BigEndian.Uint64(run[at:]))
		}
		if n := entryValue(run[at:]); n == 0 || base && n < 0 {
			return fmt.Sprintf("counts block %016x %d", binary.BigEndian.Uint64(run[at:]), n)
		}
	}
	return ""
}

package store

import (
	"encoding/binary"
	"fmt"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// Schema 2's lexical index: postings keyed by span and term string, each
// posting carrying its chunk's length, and each chunk's terms with their
// frequencies as strings (legacyChunkTerms).
var (
	legacyPostings   = []byte("postings")
	legacyChunkTerms = []byte("chunkterms")
)

// migrateLexicon rebuilds a schema 2 lexical index in schema 3's form
// (postings.go) from its chunk term records, which hold every term and
// frequency: one transaction per span of chunk ids, so the memory a
// transaction holds is one span's postings (one transaction over a store
// of 100k notes held 450 MB), then one that drops the schema 2 buckets
// and records schema 3. Until that last one commits the file is a schema
// 2 store, which an older memd still reads; so a migration a crash cut
// short starts again from empty schema 3 buckets rather than from where
// it stopped, since notes may have changed in between.
func (db *DB) migrateLexicon() error {
	if err := db.update(resetLexicon); err != nil {
		return err
	}
	next := u64key(0)
	for next != nil {
		if err := db.update(func(btx *bolt.Tx) error {
			var err error
			next, err = migrateSpan(btx, next)
			return err
		}); err != nil {
			return err
		}
		if afterMigratedSpan != nil {
			if err := afterMigratedSpan(); err != nil {
				return err
			}
		}
	}
	return db.update(func(btx *bolt.Tx) error {
		for _, name := range [][]byte{legacyChunkTerms, legacyPostings} {
			if err := btx.DeleteBucket(name); err != nil && btx.Bucket(name) != nil {
				return fmt.Errorf("drop schema 2 bucket %s: %w", name, err)
			}
		}
		return btx.Bucket(bucketNames[bucketMeta]).Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion))
	})
}

// afterMigratedSpan is called after each span's transaction; tests stop a
// migration there. Nil outside tests.
var afterMigratedSpan func() error

// lexiconBuckets are schema 3's lexical index.
var lexiconBuckets = []bucketID{bucketTerms, bucketTermNames, bucketLengths, bucketChunkTerms, bucketPostings}

// resetLexicon empties schema 3's lexical buckets.
func resetLexicon(btx *bolt.Tx) error {
	for _, id := range lexiconBuckets {
		if err := btx.DeleteBucket(bucketNames[id]); err != nil {
			return fmt.Errorf("empty bucket %s: %w", bucketNames[id], err)
		}
		if _, err := btx.CreateBucket(bucketNames[id]); err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketNames[id], err)
		}
	}
	return nil
}

// migrateSpan rebuilds the index of the schema 2 chunk term records from
// key from on, up to the end of that chunk's span, and returns the key
// to go on from, nil after the last.
func migrateSpan(btx *bolt.Tx, from []byte) ([]byte, error) {
	t := &Tx{tx: btx}
	var terms []TermFreq
	c := btx.Bucket(legacyChunkTerms).Cursor()
	k, v := c.Seek(from)
	if k == nil {
		return nil, nil
	}
	span := binary.BigEndian.Uint64(k) >> blockShift
	for ; k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return nil, damagedRecord("a schema 2 chunk term key %x is not 8 bytes", k)
		}
		id := binary.BigEndian.Uint64(k)
		if id>>blockShift != span {
			break
		}
		terms = nil // the transaction keeps each chunk's terms (addChunkTerms)
		r := recordReader{b: v}
		for len(r.b) > 0 {
			terms = append(terms, TermFreq{Term: r.str(), Freq: uint32(r.uint())})
		}
		if err := r.done(); err != nil {
			return nil, damagedRecord("chunk %d's schema 2 term record does not decode", id)
		}
		if err := t.addChunkTerms(id, &NewChunk{Terms: terms}); err != nil {
			return nil, err
		}
	}
	next := []byte(nil)
	if k != nil {
		next = append(next, k...) // k lives in the transaction's pages
	}
	return next, t.flushPostings()
}

func damagedRecord(format string, args ...any) error {
	return fmt.Errorf("migrate the lexical index to schema 3: "+format+": %w", append(args, errDamaged)...)
}

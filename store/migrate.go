package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
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
// frequency, and drops the schema 2 buckets. It runs inside Open's
// migration transaction, so a crash leaves the schema 2 store as it was
// and the next Open starts again. Postings are written span by span as
// the chunks (in id order) leave one, which bounds the memory it holds to
// one span's postings.
func migrateLexicon(btx *bolt.Tx) error {
	old := btx.Bucket(legacyChunkTerms)
	if old == nil {
		return nil
	}
	t := &Tx{tx: btx}
	span := uint64(0)
	var terms []TermFreq
	c := old.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return damagedRecord("a schema 2 chunk term key %x is not 8 bytes", k)
		}
		id := binary.BigEndian.Uint64(k)
		if id>>blockShift != span {
			if err := t.flushPostings(); err != nil {
				return err
			}
			span = id >> blockShift
		}
		terms = terms[:0]
		r := recordReader{b: v}
		for len(r.b) > 0 {
			terms = append(terms, TermFreq{Term: r.str(), Freq: uint32(r.uint())})
		}
		if err := r.done(); err != nil {
			return damagedRecord("chunk %d's schema 2 term record does not decode", id)
		}
		if err := t.addChunkTerms(id, terms); err != nil {
			return err
		}
	}
	if err := t.flushPostings(); err != nil {
		return err
	}
	for _, name := range [][]byte{legacyChunkTerms, legacyPostings} {
		if err := btx.DeleteBucket(name); err != nil && btx.Bucket(name) != nil {
			return fmt.Errorf("drop schema 2 bucket %s: %w", name, err)
		}
	}
	return nil
}

func damagedRecord(format string, args ...any) error {
	return fmt.Errorf("migrate the lexical index to schema 3: "+format+": %w", append(args, errDamaged)...)
}

package store

import (
	"encoding/binary"
	"fmt"

	"github.com/memd-dev/memd/rank"
)

// checkLexicon decodes the lexical index, which bbolt's check cannot
// judge: every posting block, with a length for each of its chunks (a
// chunk with a posting has at least one term), every span's lengths and
// every chunk term record. Its first finding is a DamageError.
func (db *DB) checkLexicon() error {
	return db.checkDecoded((*Tx).lexiconProblem, "; `memctl reindex` rebuilds the index")
}

// checkDecoded runs problem, a check of what bbolt's check cannot judge,
// in a read transaction; what it finds, with hint after it, is a
// DamageError.
func (db *DB) checkDecoded(problem func(*Tx) string, hint string) error {
	var found string
	err := db.View(func(t *Tx) error {
		found = problem(t)
		return nil
	})
	if err != nil {
		return err
	}
	if found != "" {
		return damaged(db.path, found+hint)
	}
	return nil
}

func (t *Tx) lexiconProblem() string {
	if v := t.Meta(string(keySchema)); len(v) == 8 && binary.BigEndian.Uint64(v) < 3 {
		// Schema 2's index, which Check (read-only) cannot migrate and
		// the next Open rebuilds from its chunk term records.
		return ""
	}
	terms := t.bucket(bucketTerms).Sequence()
	problem := ""
	t.bucket(bucketLengths).ForEach(func(k, v []byte) error {
		if len(k) != 4 || !rank.Lengths(v).Valid() {
			problem = fmt.Sprintf("the chunk lengths of span %x do not decode", k)
		}
		return nil
	})
	if problem != "" {
		return problem
	}
	var list []Posting
	c := t.bucket(bucketPostings).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 || binary.BigEndian.Uint32(k[4:]) == 0 || uint64(binary.BigEndian.Uint32(k[4:])) > terms {
			return fmt.Sprintf("posting key %x names no term", k)
		}
		span := binary.BigEndian.Uint32(k)
		var err error
		if list, err = rank.DecodeBlock(v, uint64(span)<<blockShift, t.spanLengths(span), list[:0]); err != nil {
			return fmt.Sprintf("posting block %x does not decode", k)
		}
		for _, p := range list {
			if p.Length == 0 {
				return fmt.Sprintf("posting block %x holds chunk %d, which has no length", k, p.Chunk)
			}
		}
	}
	t.bucket(bucketChunkTerms).ForEach(func(k, v []byte) error {
		var last uint32
		if decodeTermIDs(v, func(id, _ uint32) { last = id }) != nil || uint64(last) > terms {
			problem = fmt.Sprintf("the term record of chunk %x does not decode", k)
		}
		return nil
	})
	if problem != "" {
		return problem
	}
	if n := t.bucket(bucketTermNames).Stats().KeyN; n != t.bucket(bucketTerms).Stats().KeyN {
		return fmt.Sprintf("the term dictionary holds %d terms and %d names; they do not decode as one", t.bucket(bucketTerms).Stats().KeyN, n)
	}
	return problem
}

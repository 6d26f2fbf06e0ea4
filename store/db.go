package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout this memd writes. A file with a higher version
// is refused; a lower one is migrated forward in Open.
//
//  1. JSON note and chunk records.
//  2. Binary note and chunk records (record.go); schema 1's JSON ones are
//     still read, so the step only records the new version, and a memd
//     that knows only schema 1 refuses the file instead of misreading it.
const SchemaVersion = 2

// bucketID names one of the top-level buckets, all created when the store
// opens and never deleted.
type bucketID int

const (
	bucketMeta bucketID = iota
	bucketFolders
	bucketNotes
	bucketHashes
	bucketChunks
	bucketChunkTerms
	bucketPostings
	bucketJobs
	bucketJobPaths
	bucketSkips
	// bucketVectors holds one nested bucket per embedder fingerprint; in
	// each, chunk id (8 bytes, big-endian) → encoded vector.
	bucketVectors
	// bucketEnrich: note path → a one-byte mark; the notes the model stages have
	// still to enrich (see QueueEnrich).
	bucketEnrich
	bucketCount
)

// bucketNames are the top-level buckets' names in the file.
var bucketNames = [bucketCount][]byte{
	bucketMeta: []byte("meta"), bucketFolders: []byte("folders"), bucketNotes: []byte("notes"),
	bucketHashes: []byte("hashes"), bucketChunks: []byte("chunks"), bucketChunkTerms: []byte("chunkterms"),
	bucketPostings: []byte("postings"), bucketJobs: []byte("jobs"), bucketJobPaths: []byte("jobpaths"),
	bucketSkips: []byte("skips"), bucketVectors: []byte("vectors"), bucketEnrich: []byte("enrich"),
}

var keySchema = []byte("schema")

// Options tune Open. The zero value is what the daemon uses.
type Options struct {
	// Timeout bounds the wait for another process's file lock; zero means 1s.
	Timeout time.Duration
	// NoSync skips fsync on commit; only benchmarks and throwaway stores set it.
	NoSync bool
}

// DB is an open memd store. It is safe for concurrent use: any number of
// View transactions run beside one Update at a time.
type DB struct {
	bolt *bolt.DB
	path string
}

// Open opens or creates the store at path, creating its folder (0700). It
// refuses a file written by a newer memd with ErrNewerSchema and a file held
// by another process with ErrLocked.
func Open(path string, o Options) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Second
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      timeout,
		NoSync:       o.NoSync,
		FreelistType: bolt.FreelistMapType,
		// Growing the mmap remaps the file; starting at 64 MiB of address
		// space (not memory) spares a first index most of those remaps.
		InitialMmapSize: 64 << 20,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w (is another memd running with this data folder?)", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w (if the file is damaged, move it aside and memd will re-index your folders)", path, err)
	}
	db := &DB{bolt: b, path: path}
	if err := db.migrate(); err != nil {
		b.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) migrate() error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		for _, name := range bucketNames {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bucketNames[bucketMeta])
		v := meta.Get(keySchema)
		if v == nil {
			return meta.Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion))
		}
		if len(v) != 8 {
			return fmt.Errorf("store %s: schema version record is damaged; move the file aside to re-index", db.path)
		}
		if got := binary.BigEndian.Uint64(v); got > SchemaVersion {
			return fmt.Errorf("%w: %s has schema %d, this memd reads up to %d; upgrade memd or use another --data folder",
				ErrNewerSchema, db.path, got, SchemaVersion)
		}
		// The skip counter came after schema 2's first stores: count once.
		if meta.Get([]byte(counterSkips)) == nil {
			n := uint64(tx.Bucket(bucketNames[bucketSkips]).Stats().KeyN)
			if err := meta.Put([]byte(counterSkips), binary.BigEndian.AppendUint64(nil, n)); err != nil {
				return err
			}
		}
		if binary.BigEndian.Uint64(v) < SchemaVersion {
			return meta.Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion))
		}
		return nil
	})
}

// Path is the file the store lives in.
func (db *DB) Path() string { return db.path }

// Size is the file's size in bytes.
func (db *DB) Size() int64 {
	var n int64
	_ = db.bolt.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n
}

// Close waits for open transactions and closes the file.
func (db *DB) Close() error { return db.bolt.Close() }

// View runs fn in a read-only transaction that sees one consistent snapshot.
func (db *DB) View(fn func(*Tx) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// Update runs fn in a read-write transaction. Everything fn writes commits
// together or, if fn returns an error, not at all.
func (db *DB) Update(fn func(*Tx) error) error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		t := &Tx{tx: tx}
		if err := fn(t); err != nil {
			return err
		}
		return t.flushPostings()
	})
}

// Tx is a transaction. It belongs to the goroutine running the function
// given to View or Update, and must not be used after that function
// returns.
type Tx struct {
	tx       *bolt.Tx
	postings *postingEdits
	// opened holds the top-level buckets this transaction has opened. In a
	// read transaction bbolt looks a bucket up and allocates it anew on
	// every Bucket call, and a recall opens one for each chunk it reads.
	// Top-level buckets are created at Open and never deleted, so one
	// stays valid for the whole transaction.
	opened [bucketCount]*bolt.Bucket
}

// bucket returns a top-level bucket, opened once per transaction.
func (t *Tx) bucket(id bucketID) *bolt.Bucket {
	if t.opened[id] == nil {
		t.opened[id] = t.tx.Bucket(bucketNames[id])
	}
	return t.opened[id]
}

// Meta returns the value stored under key in the meta bucket, or nil.
func (t *Tx) Meta(key string) []byte {
	v := t.bucket(bucketMeta).Get([]byte(key))
	if v == nil {
		return nil
	}
	return append([]byte(nil), v...)
}

// SetMeta stores value under key in the meta bucket.
func (t *Tx) SetMeta(key string, value []byte) error {
	return t.bucket(bucketMeta).Put([]byte(key), value)
}

func u64key(id uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), id) }

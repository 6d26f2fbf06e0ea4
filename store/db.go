package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
	bolterrors "github.com/memd-dev/memd/internal/bbolt/errors"

	"github.com/memd-dev/memd/rank"
)

// SchemaVersion is the layout this memd writes. A file with a higher version
// is refused; a lower one is migrated forward in Open.
//
//  1. JSON note and chunk records.
//  2. Binary note and chunk records (record.go); schema 1's JSON ones are
//     still read, so the step only records the new version, and a memd
//     that knows only schema 1 refuses the file instead of misreading it.
//  3. The lexical index by term id, with chunk lengths kept once per span
//     of ids instead of in every posting (postings.go). Open rebuilds a
//     schema 2 index from its chunk term records (migrate.go), a span of
//     chunk ids a transaction, and records the new version with the last.
//  4. Block counts in tiers (blocktiers.go): schema 3's shards are the
//     base, with runs of count changes beside them. Nothing is rewritten,
//     but a memd that knows only schema 3 would read the base alone, too
//     low or high a count, so it refuses the file instead.
const SchemaVersion = 4

// bucketID names one of the top-level buckets, all created when the store
// opens and never deleted.
type bucketID int

const (
	bucketMeta bucketID = iota
	bucketFolders
	bucketNotes
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
	// bucketBlocks: how many notes of a folder hold each block (blocks.go).
	bucketBlocks
	// bucketTerms, bucketLengths, bucketTermNames: the lexical index's
	// term ids, chunk lengths and each id's term (postings.go).
	bucketTerms
	bucketLengths
	bucketTermNames
	bucketCount
)

// bucketNames are the top-level buckets' names in the file.
var bucketNames = [bucketCount][]byte{
	bucketMeta: []byte("meta"), bucketFolders: []byte("folders"), bucketNotes: []byte("notes"),
	bucketChunks: []byte("chunks"), bucketChunkTerms: []byte("chunktermids"),
	bucketPostings: []byte("postingblocks"), bucketJobs: []byte("jobs"), bucketJobPaths: []byte("jobpaths"),
	bucketSkips: []byte("skips"), bucketVectors: []byte("vectors"), bucketEnrich: []byte("enrich"),
	bucketBlocks: []byte("blocks"),
	bucketTerms:  []byte("terms"), bucketLengths: []byte("lengths"), bucketTermNames: []byte("termnames"),
}

var keySchema = []byte("schema")

// legacyHashes is the bucket that indexed notes by content hash before
// the index moved into memory (hashindex.go). Open drops it, with no new
// schema version: a memd that knows it opens the store still, makes it
// anew, empty, and finds renames only of the notes it writes itself.
var legacyHashes = []byte("hashes")

// Options tune Open. The zero value is what the daemon uses.
type Options struct {
	// Timeout bounds the wait for another process's file lock; zero means 1s.
	Timeout time.Duration
	// NoSync skips fsync on commit; only benchmarks and throwaway stores set it.
	NoSync bool
	// ReadOnly opens the file without writing to it; Check uses it.
	ReadOnly bool
}

// DB is an open memd store. It is safe for concurrent use: any number of
// View transactions run beside one Update at a time.
type DB struct {
	// current is the open bbolt file; Compact swaps in a compacted one.
	current atomic.Pointer[bolt.DB]
	// writes is held by every Update and by Compact, so no write is lost
	// between the copy and the swap.
	writes sync.Mutex
	path   string
	alarm  *damageAlarm
	// restored and restoreErr say what syncRegistrations found at open.
	restored   []Folder
	restoreErr error
	// upgrade is what Open did to a store of an older schema; nil when it
	// rebuilt nothing.
	upgrade *Upgrade
	// terms are term ids the lexicon held at the last commits, under
	// writes (termcache.go).
	terms termCache
	// hashes finds notes by content hash (hashindex.go).
	hashes hashIndex
}

// Upgrade says what Open did to a store whose index an older memd wrote:
// it rebuilt the index in this schema, then compacted the file, since the
// pages the old index held would otherwise keep the file at its old size.
type Upgrade struct {
	From          uint64 // the schema the store had
	Before, After int64  // the file's size before and after the compaction
	// CompactErr is why the compaction failed (a full disk, say); the
	// store is sound without it, and `memctl compact` tries again.
	CompactErr error
}

// Upgraded is what Open did to a store of an older schema, nil when the
// store needed nothing.
func (db *DB) Upgraded() *Upgrade { return db.upgrade }

// Open opens or creates the store at path, creating its folder (0700). It
// refuses a file written by a newer memd with ErrNewerSchema, a file held
// by another process with ErrLocked, and a file it cannot read safely with
// a DamageError (ErrDamaged): cut short, meta pages destroyed, or pages
// bbolt faults on while opening.
//
// A new store takes the folders kept in the registrations file beside it
// (see Restored).
func Open(path string, o Options) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	fresh := err != nil || fi.Size() == 0
	var b *bolt.DB
	err = contain(path, func() error {
		var err error
		b, err = openBolt(path, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !o.ReadOnly {
		removeCompactLeftovers(path)
	}
	db := &DB{path: path, alarm: newDamageAlarm()}
	db.current.Store(b)
	db.hashes.follow(b)
	if err := db.migrate(); err != nil {
		b.Close()
		return nil, err
	}
	if o.ReadOnly {
		return db, nil
	}
	if err := db.syncRegistrations(fresh); err != nil {
		b.Close()
		return nil, err
	}
	return db, nil
}

// openBolt opens the bbolt file, telling a lock held elsewhere and a file
// bbolt finds invalid from other failures.
func openBolt(path string, o Options) (*bolt.DB, error) {
	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Second
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      timeout,
		NoSync:       o.NoSync,
		ReadOnly:     o.ReadOnly,
		FreelistType: bolt.FreelistMapType,
		// Growing the mmap remaps the file; starting at 64 MiB of address
		// space (not memory) spares a first index most of those remaps.
		InitialMmapSize: 64 << 20,
	})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("open %s: %w (is another memd running with this data folder?)", path, ErrLocked)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum), errors.Is(err, bolterrors.ErrVersionMismatch):
		return nil, damaged(path, err.Error())
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	b.NoGrowSync = o.NoSync
	return b, nil
}

func (db *DB) migrate() error {
	if db.current.Load().IsReadOnly() {
		return nil
	}
	var lexicon bool // a schema 2 lexical index to rebuild (migrate.go)
	var from uint64
	err := db.update(func(tx *bolt.Tx) error {
		for _, name := range bucketNames {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		if tx.Bucket(legacyHashes) != nil {
			if err := tx.DeleteBucket(legacyHashes); err != nil {
				return fmt.Errorf("drop bucket %s: %w", legacyHashes, err)
			}
		}
		meta := tx.Bucket(bucketNames[bucketMeta])
		v := meta.Get(keySchema)
		if v == nil {
			return meta.Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion))
		}
		if len(v) != 8 {
			return damaged(db.path, "its schema version record is not 8 bytes")
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
		from = binary.BigEndian.Uint64(v)
		if lexicon = from < 3 && tx.Bucket(legacyChunkTerms) != nil; lexicon {
			return nil // the version changes with the rebuilt index's last step
		}
		if binary.BigEndian.Uint64(v) < SchemaVersion {
			return meta.Put(keySchema, binary.BigEndian.AppendUint64(nil, SchemaVersion))
		}
		return nil
	})
	if err != nil || !lexicon {
		return err
	}
	if err := db.migrateLexicon(); err != nil {
		return err
	}
	db.upgrade = &Upgrade{From: from}
	db.upgrade.Before, db.upgrade.After, db.upgrade.CompactErr = db.Compact()
	return nil
}

// Path is the file the store lives in.
func (db *DB) Path() string { return db.path }

// Size is the file's size in bytes.
func (db *DB) Size() int64 {
	fi, err := os.Stat(db.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// ReadTxs is how many read transactions have begun on the file since it
// was opened or last compacted (bbolt's Stats.TxN): how tests see how
// often a caller reads.
func (db *DB) ReadTxs() int { return db.current.Load().Stats().TxN }

// Close waits for open transactions and closes the file.
func (db *DB) Close() error {
	db.writes.Lock()
	defer db.writes.Unlock()
	return db.current.Load().Close()
}

// View runs fn in a read-only transaction that sees one consistent snapshot.
// A page that bbolt cannot read ends it with a DamageError (see Damaged).
func (db *DB) View(fn func(*Tx) error) error {
	return db.view(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, hashes: &db.hashes}) })
}

// Update runs fn in a read-write transaction. Everything fn writes commits
// together or, if fn returns an error, not at all. A transaction that
// changed the registered folders rewrites the registrations file before
// Update returns. A page that bbolt cannot read ends it with a DamageError.
func (db *DB) Update(fn func(*Tx) error) error {
	var foldersChanged, staged bool
	err := db.update(func(tx *bolt.Tx) error {
		db.terms.scratch.records.reset() // the last write's records are written
		t := &Tx{tx: tx, terms: &db.terms, records: &db.terms.scratch.records, hashes: &db.hashes}
		if err := fn(t); err != nil {
			return err
		}
		foldersChanged = t.foldersChanged
		if err := t.flushBlocks(); err != nil {
			return err
		}
		if err := t.flushPostings(); err != nil {
			return err
		}
		if err := t.flushCounters(); err != nil {
			return err
		}
		if staged = len(t.hashEdits) > 0; staged {
			db.hashes.stage(tx, t.hashEdits)
			id := tx.ID()
			tx.OnCommit(func() { db.hashes.commit(id) })
		}
		return nil
	})
	if staged && err != nil {
		db.hashes.unstage()
	}
	if err == nil && foldersChanged {
		err = db.keepRegistrations()
	}
	return err
}

func (db *DB) view(fn func(*bolt.Tx) error) error {
	return db.noteDamage(contain(db.path, func() error { return db.current.Load().View(fn) }))
}

func (db *DB) update(fn func(*bolt.Tx) error) error {
	db.writes.Lock()
	defer db.writes.Unlock()
	b := db.current.Load()
	b.AllocSize = growStep(db.Size()) // read by bbolt only in a write's commit
	return db.noteDamage(contain(db.path, func() error { return b.Update(fn) }))
}

// noteDamage raises the alarm when err says the file is damaged.
func (db *DB) noteDamage(err error) error {
	if isDamage(err) && db.alarm != nil {
		db.alarm.raise(err)
	}
	return err
}

// Damaged is closed when a transaction first finds the file damaged; the
// DamageError that found it is DamageErr. The store must then be closed,
// moved aside (MoveAside) and opened anew.
func (db *DB) Damaged() <-chan struct{} { return db.alarm.ch }

// DamageErr is the error that closed Damaged, or nil.
func (db *DB) DamageErr() error {
	select {
	case <-db.alarm.ch:
		return db.alarm.err
	default:
		return nil
	}
}

// Tx is a transaction. It belongs to the goroutine running the function
// given to View or Update, and must not be used after that function
// returns.
type Tx struct {
	tx    *bolt.Tx
	terms *termCache // a write transaction's; nil where a lexicon is rebuilt
	// records is where a write transaction's records are cut from
	// (arena.go): the term cache's, or one of its own.
	records        *valueArena
	postings       *postingEdits
	counterDeltas  map[string]int64 // counter changes not yet written (counters.go)
	foldersChanged bool
	// hashes is the store's index of notes by content hash, hashEdits
	// this transaction's changes to it (hashindex.go).
	hashes       *hashIndex
	hashEdits    []hashEdit
	blockDeltas  map[string]map[uint64]int         // folder → block → count change not yet written (blocks.go)
	blockChanges map[string]map[uint64]countChange // folder → block → count this transaction changed (blocks.go)
	// opened holds the top-level buckets this transaction has opened. In a
	// read transaction bbolt looks a bucket up and allocates it anew on
	// every Bucket call, and a recall opens one for each chunk it reads.
	// Top-level buckets are created at Open and never deleted, so one
	// stays valid for the whole transaction.
	opened [bucketCount]*bolt.Bucket
	// cursors holds a cursor per top-level bucket for get.
	cursors [bucketCount]*bolt.Cursor
	// lengths caches the span lengths a read transaction has read
	// (spanLengths), lengthsRead which of them it has.
	lengths     []rank.Lengths
	lengthsRead []bool
}

// bucket returns a top-level bucket, opened once per transaction.
func (t *Tx) bucket(id bucketID) *bolt.Bucket {
	if t.opened[id] == nil {
		t.opened[id] = t.tx.Bucket(bucketNames[id])
		if t.tx.Writable() && appendFill[id] != 0 {
			t.opened[id].FillPercent = appendFill[id]
		}
	}
	return t.opened[id]
}

// arena is where this transaction cuts the records it puts from.
func (t *Tx) arena() *valueArena {
	if t.records == nil {
		t.records = &valueArena{}
	}
	return t.records
}

// get is bucket id's value for key, nil when it holds none (or a nested
// bucket there), as bbolt's Get, but through a cursor the transaction
// keeps for the bucket: each Get makes a cursor and grows its stack anew,
// which in a bulk commit's hundred thousand lookups was most of the
// process's allocations. A Seek starts from the root, so a write between
// two gets does not mislead it.
func (t *Tx) get(id bucketID, key []byte) []byte {
	c := t.cursors[id]
	if c == nil {
		c = t.bucket(id).Cursor()
		t.cursors[id] = c
	}
	k, v := c.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
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

// Version names the state of the store a transaction sees: two
// transactions see the same notes exactly when their Versions are equal,
// so a reader can key what it derived from the store by it. It holds the
// bbolt file open (a compaction swaps in a new one, whose transaction
// count starts again) and the count of writes committed to it before.
type Version struct {
	file   *bolt.DB
	writes int
}

// Version is the state of the store this transaction sees.
func (t *Tx) Version() Version {
	v := Version{file: t.tx.DB(), writes: t.tx.ID()}
	if t.tx.Writable() {
		v.writes--
	}
	return v
}

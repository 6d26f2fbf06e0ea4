package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// bbolt never shrinks its file: pages freed by deletes and rewrites are
// reused, not given back, so a full reindex leaves a file about three times
// its live size. Compact copies the live data into a new file and swaps it
// in.

// compactTxBytes bounds one transaction of the copy, so compaction's memory
// stays small on a large store.
const compactTxBytes = 16 << 20

// Space is how the store's file is used.
type Space struct {
	FileBytes int64 `json:"file_bytes"`
	// LiveBytes are in pages that hold data; the rest of the file is free
	// pages bbolt keeps for reuse and room it grew into ahead of need.
	LiveBytes int64 `json:"live_bytes"`
}

// Space reports the file's size and how much of it holds data.
func (db *DB) Space() Space {
	b := db.current.Load()
	st := b.Stats()
	sp := Space{FileBytes: db.Size()}
	_ = b.View(func(tx *bolt.Tx) error {
		sp.LiveBytes = tx.Size() - int64(st.FreePageN+st.PendingPageN)*int64(b.Info().PageSize)
		return nil
	})
	return sp
}

// Wasteful reports whether the space not holding data passes share (0 to
// 1) of a file of at least minBytes: worth a Compact.
func (s Space) Wasteful(share float64, minBytes int64) bool {
	return s.FileBytes >= minBytes && float64(s.FileBytes-s.LiveBytes) > share*float64(s.FileBytes)
}

// compactStep names the points between Compact's steps; tests kill the
// process at each to see that the store survives.
type compactStep string

const (
	stepCopied  compactStep = "copied"  // the new file is written and synced, under its temporary name
	stepRenamed compactStep = "renamed" // the new file has replaced the old; the folder is not yet synced
)

// afterCompactStep is called after each step; nil outside tests.
var afterCompactStep func(compactStep)

// Compact copies the store's live data into a new file beside it and
// swaps that file in: rename over the old one, then the folder synced.
// Reads go on during the copy and see the old file; writes wait for the
// swap. A crash at any point leaves the old file or the new one, both
// whole; a temporary file a crash leaves is removed at the next Open. It
// needs free disk space for the live data.
func (db *DB) Compact() (before, after int64, err error) {
	db.writes.Lock()
	defer db.writes.Unlock()
	db.terms = termCache{} // the copy keeps the ids; the cache need not outlive the file
	before = db.Size()
	tmp := compactPath(db.path)
	os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{NoSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return before, before, fmt.Errorf("compact: create %s: %w", tmp, err)
	}
	err = db.noteDamage(contain(db.path, func() error { return bolt.Compact(dst, db.current.Load(), compactTxBytes) }))
	if err == nil {
		// The copy ran without fsync; one sync makes all of it durable
		// before the rename can expose it.
		err = dst.Sync()
	}
	if err != nil {
		dst.Close()
		os.Remove(tmp)
		return before, before, fmt.Errorf("compact %s: %w", db.path, err)
	}
	dst.NoSync = db.current.Load().NoSync
	db.stepDone(stepCopied)
	if err := os.Rename(tmp, db.path); err != nil {
		dst.Close()
		os.Remove(tmp)
		return before, before, fmt.Errorf("compact: swap in %s: %w", tmp, err)
	}
	db.stepDone(stepRenamed)
	old := db.current.Swap(dst)
	db.hashes.follow(dst)
	syncErr := syncDir(filepath.Dir(db.path))
	// Close waits for the reads still running on the old file, which the
	// rename unlinked but their mapping keeps.
	closeErr := old.Close()
	return before, db.Size(), errors.Join(syncErr, closeErr)
}

func (db *DB) stepDone(s compactStep) {
	if afterCompactStep != nil {
		afterCompactStep(s)
	}
}

func compactPath(path string) string { return path + ".compacting" }

// removeCompactLeftovers removes the temporary file of a compaction that a
// crash interrupted before its swap.
func removeCompactLeftovers(path string) {
	os.Remove(compactPath(path))
}

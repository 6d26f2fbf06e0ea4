package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// Verdict is what Check found in a store file.
type Verdict struct {
	Path string `json:"path"`
	// OK is true when the file is absent (memd creates it) or passed every
	// check.
	OK bool `json:"ok"`
	// Problem says what is wrong when OK is false.
	Problem string `json:"problem,omitempty"`
	// Reason is why the file is damaged (DamageError's Reason) when the
	// problem is damage; empty when the check could not look (Locked, or
	// the file could not be opened for another cause).
	Reason string `json:"reason,omitempty"`
	// Locked is true when another process holds the file, so it could not
	// be checked.
	Locked bool  `json:"locked,omitempty"`
	Notes  int   `json:"notes"`
	Chunks int   `json:"chunks"`
	Bytes  int64 `json:"bytes"`
	// Folders are the registered folders, from the store, else from the
	// registrations file beside it.
	Folders []string `json:"folders,omitempty"`
	// Took is how long the check ran.
	Took time.Duration `json:"took_ns"`
}

// Check opens the file at path read-only and runs every check memd has:
// the meta pages against the file's size, then bbolt's own consistency
// check (every page reachable once, none both used and free, keys in
// order), then a read of every key and value, a decode of the lexical
// index and the block counts, the counters and folders. It reads the whole
// file: about 4 s per GB from the page cache on 2 cores (docs/reliability.md).
//
// bbolt's check walks pages in a goroutine of its own, where a page it
// cannot follow crashes the process instead of panicking in the caller;
// run Check in a process of its own (memd store check) and take its
// crash as a damaged verdict.
func Check(path string) (v Verdict) {
	start := time.Now()
	v.Path = path
	defer func() { v.Took = time.Since(start) }()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		v.OK = true
		v.Folders = registeredPaths(path)
		return v
	} else {
		v.Bytes = fi.Size()
	}
	db, err := Open(path, Options{ReadOnly: true, Timeout: 200 * time.Millisecond})
	if err != nil {
		v.fail(err)
		v.Folders = registeredPaths(path)
		return v
	}
	defer db.Close()
	if err = db.check(); err == nil {
		err = db.readEverything()
	}
	if err == nil {
		err = db.checkLexicon()
	}
	if err == nil {
		err = db.checkBlocks()
	}
	if err != nil {
		v.fail(err)
		v.Folders = registeredPaths(path)
		return v
	}
	err = db.View(func(tx *Tx) error {
		c := tx.Counts()
		v.Notes, v.Chunks = c.Notes, c.Chunks
		fs, err := tx.Folders()
		for _, f := range fs {
			v.Folders = append(v.Folders, f.Path)
		}
		return err
	})
	if err != nil {
		v.fail(err)
		return v
	}
	v.OK = true
	return v
}

// fail records err as the verdict's problem, and its reason when it is
// damage.
func (v *Verdict) fail(err error) {
	v.Problem, v.Locked = err.Error(), errors.Is(err, ErrLocked)
	if d, ok := errors.AsType[*DamageError](err); ok {
		v.Reason = d.Reason
	}
}

// Damaged is the verdict of a check that crashed on the file at path:
// damage too, reason saying how it crashed.
func Damaged(path, reason string) Verdict {
	return Verdict{Path: path, Problem: damaged(path, reason).Error(), Reason: reason}
}

// Damage is the DamageError the verdict stands for, nil when the file is
// not damaged or could not be checked.
func (v Verdict) Damage() error {
	if v.Reason == "" {
		return nil
	}
	return damaged(v.Path, v.Reason)
}

// check runs bbolt's consistency check and reports its first findings.
func (db *DB) check() error {
	var found []string
	n := 0
	err := db.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			if n < 3 {
				found = append(found, err.Error())
			}
			n++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		return damaged(db.path, fmt.Sprintf("bbolt's consistency check found %d problems: %s", n, strings.Join(found, "; ")))
	}
	return nil
}

// readEverything reads every key and value of every bucket in this
// goroutine, where a page bbolt cannot follow is contained. bbolt's check
// runs in a goroutine of its own that closes its channel as it panics: the
// caller can read "no problems" and go on before the panic ends the
// process, so the walk is done again here.
func (db *DB) readEverything() error {
	var walk func(b *bolt.Bucket) error
	walk = func(b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				if child := b.Bucket(k); child != nil {
					return walk(child)
				}
			}
			return nil
		})
	}
	return db.view(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walk(b) })
	})
}

// registeredPaths lists the folders in the registrations file beside the
// store at dbPath, for a verdict on a store that cannot say.
func registeredPaths(dbPath string) []string {
	fs, _ := ReadRegistrations(dbPath)
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// MoveAside renames the store at path (and nothing else) to a name that
// says it is damaged and when it was moved, and returns that name; the
// registrations file stays, so a new store at path takes the folders.
func MoveAside(path string) (string, error) {
	aside := fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("move the damaged store %s aside: %w; move or delete it yourself and start memd again", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return aside, err
	}
	return aside, nil
}

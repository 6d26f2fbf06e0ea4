package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The registered folders are kept twice: in the store, where the indexer
// reads them, and in a small file beside it, written after every change
// and before the change is acknowledged. A store found damaged is moved
// aside and rebuilt from the folders; the file is how it knows which.

// registrations is the file's form.
type registrations struct {
	Version int      `json:"version"`
	Folders []Folder `json:"folders"`
}

// RegistrationsPath is the file beside the store at dbPath that keeps the
// registered folders.
func RegistrationsPath(dbPath string) string {
	return strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + ".folders.json"
}

// ReadRegistrations reads the folders kept beside the store at dbPath; no
// file means none.
func ReadRegistrations(dbPath string) ([]Folder, error) {
	b, err := os.ReadFile(RegistrationsPath(dbPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read registered folders: %w", err)
	}
	var r registrations
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read registered folders from %s: %w", RegistrationsPath(dbPath), err)
	}
	return r.Folders, nil
}

// writeRegistrations replaces the file with folders: written to a temporary
// file, synced, renamed over the old one, and the folder synced, so a crash
// leaves the old list or the new one.
func writeRegistrations(dbPath string, folders []Folder) error {
	path := RegistrationsPath(dbPath)
	b, err := json.MarshalIndent(registrations{Version: 1, Folders: folders}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("keep the registered folders in %s: %w", path, err)
	}
	return nil
}

// writeFileAtomic puts b at path so that a crash leaves the old content or
// the new, never a mix.
func writeFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// keepRegistrations brings the file in line with the store after a change
// to the folders.
func (db *DB) keepRegistrations() error {
	var folders []Folder
	if err := db.View(func(tx *Tx) error {
		var err error
		folders, err = tx.Folders()
		return err
	}); err != nil {
		return err
	}
	return writeRegistrations(db.path, folders)
}

// syncRegistrations runs at open. A new store takes the folders the file
// keeps (the store was moved aside or deleted: the folders are the source
// of truth and are indexed again); an existing one is what the file must
// say.
func (db *DB) syncRegistrations(fresh bool) error {
	kept, err := ReadRegistrations(db.path)
	if err != nil {
		// The store says what is registered; the file is rewritten from it.
		db.restoreErr = err
		return db.keepRegistrations()
	}
	var stored []Folder
	if err := db.View(func(tx *Tx) error {
		stored, err = tx.Folders()
		return err
	}); err != nil {
		return err
	}
	if fresh && len(stored) == 0 && len(kept) > 0 {
		db.restored = kept
		return db.Update(func(tx *Tx) error {
			for _, f := range kept {
				if err := tx.PutFolder(f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if slices.EqualFunc(stored, kept, func(a, b Folder) bool { return a.Path == b.Path && a.Added.Equal(b.Added) }) {
		return nil
	}
	return writeRegistrations(db.path, stored)
}

// Restored lists the folders this store took from the registrations file
// when it was opened new, to be indexed again, and why the file could not
// be read if it could not.
func (db *DB) Restored() ([]Folder, error) { return db.restored, db.restoreErr }

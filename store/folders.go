package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// Folder is a registered notes folder. Path is absolute and clean.
type Folder struct {
	Path  string    `json:"path"`
	Added time.Time `json:"added"`
}

// PutFolder registers f, or updates it when already registered. When the
// transaction commits, the registrations file beside the store is rewritten
// before Update returns.
func (t *Tx) PutFolder(f Folder) error {
	v, err := json.Marshal(f)
	if err != nil {
		return err
	}
	t.foldersChanged = true
	return t.bucket(bucketFolders).Put([]byte(f.Path), v)
}

// Folder returns the registered folder at path, or ErrNotFound.
func (t *Tx) Folder(path string) (Folder, error) {
	v := t.bucket(bucketFolders).Get([]byte(path))
	if v == nil {
		return Folder{}, fmt.Errorf("folder %s: %w", path, ErrNotFound)
	}
	var f Folder
	err := json.Unmarshal(v, &f)
	return f, err
}

// Folders lists the registered folders in path order.
func (t *Tx) Folders() ([]Folder, error) {
	var out []Folder
	err := t.bucket(bucketFolders).ForEach(func(k, v []byte) error {
		var f Folder
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("folder %s: %w", k, err)
		}
		out = append(out, f)
		return nil
	})
	return out, err
}

// DeleteFolder unregisters the folder at path. Its notes stay until the
// caller deletes them (DeleteNotesUnder).
func (t *Tx) DeleteFolder(path string) error {
	t.foldersChanged = true
	return t.bucket(bucketFolders).Delete([]byte(path))
}

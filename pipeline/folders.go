package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// FolderState is a registered folder and what the watcher knows of it.
type FolderState struct {
	Path     string    `json:"path"`
	Added    time.Time `json:"added"`
	Watching bool      `json:"watching"`
	Error    string    `json:"error,omitempty"` // e.g. "folder vanished"
}

// errVanished is the FolderState error of a folder that is no longer on
// disk. Its notes are kept (it may be an unmounted drive) and it is watched
// again when a reconcile finds it back.
const errVanished = "folder vanished"

// AddFolder registers the folder at path, queues its notes and, while Run
// runs, starts watching it. The path is made absolute and clean and its
// symlinks are resolved; it must be an existing directory (ErrNotDir).
// Adding a registered folder again returns it unchanged. A folder inside,
// or containing, a registered one is refused with ErrNestedFolder, so that
// every note belongs to exactly one folder.
func (ix *Indexer) AddFolder(ctx context.Context, path string) (store.Folder, error) {
	root, err := canonicalDir(path)
	if err != nil {
		return store.Folder{}, err
	}
	ix.folderMu.Lock()
	defer ix.folderMu.Unlock()

	folders, err := ix.storedFolders()
	if err != nil {
		return store.Folder{}, fmt.Errorf("add folder %s: %w", root, err)
	}
	for _, f := range folders {
		switch {
		case f.Path == root:
			ix.folders.ensure(root)
			ix.startWatch(root)
			return f, nil
		case within(f.Path, root):
			return store.Folder{}, errorOf(ErrNestedFolder, "%s contains %s, which is already registered; remove that one first (memctl rm %s)", root, f.Path, f.Path)
		case within(root, f.Path):
			return store.Folder{}, errorOf(ErrNestedFolder, "%s is inside %s, which is already registered and indexes it", root, f.Path)
		}
	}

	f := store.Folder{Path: root, Added: time.Now().UTC()}
	if err := ix.db.Update(func(tx *store.Tx) error { return tx.PutFolder(f) }); err != nil {
		return store.Folder{}, fmt.Errorf("add folder %s: %w", root, err)
	}
	ix.folders.ensure(root)
	ix.startWatch(root)
	if _, err := ix.reconcile(ctx, root); err != nil {
		if isTransientWrite(err) {
			ix.folders.markMissed(root)
			return f, fmt.Errorf("add folder %s: it is registered, and its notes are queued once the store can be written: %w", root, err)
		}
		return f, fmt.Errorf("add folder %s: scan: %w", root, err)
	}
	return f, nil
}

// RemoveFolder stops watching the folder at path and deletes its notes,
// queued jobs and skips. An unregistered path gives ErrUnknownFolder.
func (ix *Indexer) RemoveFolder(ctx context.Context, path string) error {
	root := canonicalPath(path)
	ix.folderMu.Lock()
	defer ix.folderMu.Unlock()
	ix.writes.Lock()
	defer ix.writes.Unlock()

	if err := ix.db.View(func(tx *store.Tx) error {
		_, err := tx.Folder(root)
		return err
	}); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errorOf(ErrUnknownFolder, "%s is not a registered folder; memctl status lists them", path)
		}
		return fmt.Errorf("remove folder %s: %w", path, err)
	}
	ix.folders.drop(root)
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	if w != nil {
		w.removeTree(root)
		w.stopAwaiting(root)
	}
	prefix := dirPrefix(root)
	var ev memd.Event
	var eff *txEffects
	err := ix.db.Update(func(tx *store.Tx) error {
		eff = &txEffects{recount: true}
		if err := tx.DeleteFolder(root); err != nil {
			return err
		}
		if err := tx.DeleteNotesUnder(prefix, eff.noteRemoved); err != nil {
			return err
		}
		if err := tx.DeleteJobsUnder(prefix); err != nil {
			return err
		}
		if err := tx.DeleteSkipsUnder(prefix); err != nil {
			return err
		}
		c := tx.Counts()
		ev = memd.Event{Type: memd.EventProgress, Folder: root, Pending: c.Pending, Notes: c.Notes, At: time.Now().UTC()}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove folder %s: %w", root, err)
	}
	ix.afterCommit(eff)
	ix.emit(ev)
	return nil
}

// Folders lists the registered folders with their watch state.
func (ix *Indexer) Folders() []FolderState {
	folders, err := ix.storedFolders()
	if err != nil {
		ix.log.Warn("list folders", "err", err)
	}
	out := make([]FolderState, 0, len(folders))
	for _, f := range folders {
		out = append(out, ix.folders.state(f))
	}
	return out
}

// loadFolders brings the in-memory folder table in line with the store.
func (ix *Indexer) loadFolders() error {
	folders, err := ix.storedFolders()
	if err != nil {
		return err
	}
	for _, f := range folders {
		ix.folders.ensure(f.Path)
	}
	return nil
}

func (ix *Indexer) storedFolders() ([]store.Folder, error) {
	var folders []store.Folder
	err := ix.db.View(func(tx *store.Tx) error {
		var err error
		folders, err = tx.Folders()
		return err
	})
	return folders, err
}

// startWatch watches root's tree while Run runs; otherwise Run will.
func (ix *Indexer) startWatch(root string) {
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	if w != nil {
		w.watchFolder(root)
	}
}

// canonicalDir resolves path to the absolute, clean, symlink-free path of
// an existing directory.
func canonicalDir(path string) (string, error) {
	if path == "" {
		return "", errorOf(ErrNotDir, "no folder given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("add folder %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errorOf(ErrNotDir, "%s does not exist", abs)
	}
	if err != nil {
		return "", fmt.Errorf("add folder %s: %w", abs, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("add folder %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", errorOf(ErrNotDir, "%s is a file; give the folder that holds your notes", abs)
	}
	return real, nil
}

// canonicalPath makes path absolute and clean and resolves the symlinks of
// its longest existing ancestor, so a path named through a link matches the
// stored one even when its last parts are gone.
func canonicalPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// within reports whether path is strictly inside dir.
func within(path, dir string) bool {
	return strings.HasPrefix(path, dirPrefix(dir)) && path != dir
}

// dirPrefix is dir with one trailing separator: the key prefix of its notes.
func dirPrefix(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// canonicalNotePath is canonicalPath for a file: the folder part is
// resolved, the file name is kept even when it is a link.
func canonicalNotePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return filepath.Join(canonicalPath(filepath.Dir(abs)), filepath.Base(abs))
}

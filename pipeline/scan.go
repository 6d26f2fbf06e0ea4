package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// fileStat is what reconcile compares with a stored note.
type fileStat struct {
	size  int64
	mtime time.Time
}

// isNoteName reports whether path names a file format the parser reads.
func isNoteName(path string) bool {
	_, ok := parse.FormatOf(path)
	return ok
}

// walk is what walkNotes found under a directory.
type walk struct {
	files      map[string]foundFile // note files to index
	unreadable map[string]error     // directories it could not read
	badNames   map[string]fileStat  // note files whose names are not UTF-8
}

// foundFile is a note file a walk found. Its stat is read only when asked
// for: reconcile needs it for files with a stored note or a skip to compare
// with, and a folder added afresh has neither, so its walk costs no stat
// per file.
type foundFile struct{ entry fs.DirEntry }

// stat is the file's size and mtime, and false when it is gone.
func (f foundFile) stat() (fileStat, bool) {
	info, err := f.entry.Info()
	if err != nil {
		return fileStat{}, false
	}
	return fileStat{size: info.Size(), mtime: info.ModTime()}, true
}

// walkNotes lists the note files under dir (a folder root or a folder in
// it) that the rules do not ignore. Symlinks are not followed, so a link
// loop cannot trap the walk; linked note files are listed to be recorded
// as skipped. Directories it cannot read are returned apart, so their
// notes are not taken for deleted, and so are files whose names no job
// can carry.
func walkNotes(ctx context.Context, dir string, rules *ignoreRules) (walk, error) {
	w := walk{files: map[string]foundFile{}, unreadable: map[string]error{}, badNames: map[string]fileStat{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			if d != nil && d.IsDir() {
				w.unreadable[p] = err
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != dir && rules.ignored(p, true) {
				return filepath.SkipDir
			}
			return nil
		}
		// A linked note goes in too: the job records it as skipped, so
		// status says why it is not indexed instead of never naming it.
		linked := d.Type()&fs.ModeSymlink != 0
		if !(d.Type().IsRegular() || linked) || rules.ignored(p, false) || !isNoteName(p) {
			return nil
		}
		if utf8.ValidString(p) {
			w.files[p] = foundFile{d}
			return nil
		}
		if info, err := d.Info(); err == nil { // else gone since the directory was read
			w.badNames[p] = fileStat{size: info.Size(), mtime: info.ModTime()}
		}
		return nil
	})
	return w, err
}

// reconcile walks root and queues every note file that is new or changed
// since it was stored (by size and mtime), then every stored note whose file
// is gone, and returns how many it queued. New files come first so that a
// renamed file is seen before its old path, and is moved, not re-chunked.
func (ix *Indexer) reconcile(ctx context.Context, root string) (int, error) {
	ix.busy.Add(1)
	defer ix.busy.Add(-1)
	rules, ok := ix.folders.rules(root)
	if !ok {
		return 0, nil
	}
	found, err := walkNotes(ctx, root, rules)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			ix.folderVanished(root)
			return 0, nil
		}
		return 0, err
	}
	ix.recordUnindexable(root, found)
	files, prefix := found.files, dirPrefix(root)
	var gone []string
	err = ix.db.View(func(tx *store.Tx) error {
		if err := tx.ForEachNote(prefix, func(n *store.Note) error {
			f, ok := files[n.Path]
			if !ok {
				if !underAny(n.Path, found.unreadable) {
					gone = append(gone, n.Path)
				}
				return nil
			}
			// A file gone since the walk is queued: its job removes the note.
			if st, ok := f.stat(); ok && st.size == n.Size && st.mtime.Equal(n.ModTime) {
				delete(files, n.Path)
			}
			return nil
		}); err != nil {
			return err
		}
		// What is left is new or changed; a skipped file that has not
		// changed since its skip stays skipped.
		for p, f := range files {
			s, err := tx.Skip(p)
			if err != nil || transientReason(s.Reason) {
				continue
			}
			if st, ok := f.stat(); ok && unchangedSince(st, s) {
				delete(files, p)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	changed := make([]string, 0, len(files))
	for p := range files {
		changed = append(changed, p)
	}
	slices.Sort(changed)
	if err := ix.queue.add(root, append(changed, gone...)); err != nil {
		return 0, err
	}
	return len(changed) + len(gone), nil
}

// unchangedSince reports whether a file is as it was when skip s was
// recorded: same size, not modified after.
func unchangedSince(f fileStat, s store.Skip) bool {
	return f.size == s.Size && !f.mtime.After(s.At)
}

func underAny(path string, dirs map[string]error) bool {
	for d := range dirs {
		if strings.HasPrefix(path, dirPrefix(d)) {
			return true
		}
	}
	return false
}

// missedRetry is how often a folder whose changes could not be queued is
// walked again, until the store takes writes.
const missedRetry = 2 * time.Second

// reconcileLoop watches and reconciles every folder at start, then every
// Config.Reconcile and on request.
func (ix *Indexer) reconcileLoop(ctx context.Context) {
	ix.reconcileAll(ctx)
	ix.busy.Add(-1) // taken by Run for the start-up reconcile
	t := time.NewTicker(ix.cfg.Reconcile)
	defer t.Stop()
	missed := time.NewTicker(missedRetry)
	defer missed.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ix.reconcileAll(ctx)
		case <-missed.C:
			for _, root := range ix.folders.takeMissed() {
				ix.reconcileFolder(ctx, root)
			}
		case root := <-ix.reqs:
			if root == "" {
				ix.reconcileAll(ctx)
			} else {
				ix.reconcileFolder(ctx, root)
			}
		}
	}
}

func (ix *Indexer) reconcileAll(ctx context.Context) {
	roots := ix.folders.roots()
	slices.Sort(roots)
	for _, root := range roots {
		if ctx.Err() != nil {
			return
		}
		ix.reconcileFolder(ctx, root)
	}
}

// reconcileFolder re-watches root when it is back and reconciles it. A
// folder that is not on disk is reported as vanished; its notes are kept.
func (ix *Indexer) reconcileFolder(ctx context.Context, root string) {
	if _, ok := ix.folders.rules(root); !ok {
		return
	}
	if !dirExists(root) {
		ix.folderVanished(root)
		return
	}
	if !ix.folders.watching(root) {
		ix.folders.reloadRules(root)
		ix.startWatch(root)
	}
	if _, err := ix.reconcile(ctx, root); err != nil && ctx.Err() == nil {
		ix.emitError("reconcile folder", err, "folder", root)
		if isTransientWrite(err) {
			ix.folders.markMissed(root)
		}
	}
}

// folderVanished stops watching root and reports it; its notes stay.
func (ix *Indexer) folderVanished(root string) {
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	if w != nil {
		w.removeTree(root)
		w.awaitFolder(root)
	}
	if ix.folders.markVanished(root) {
		ix.log.Warn("folder vanished; its notes are kept until it is back or removed", "folder", root)
		ix.emit(memd.Event{Type: memd.EventError, Folder: root, Reason: errVanished, At: time.Now().UTC()})
	}
}

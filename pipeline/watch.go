package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// folderTable is what the watcher reads and records of the registered
// folders; *folderRegistry is one.
type folderTable interface {
	// of returns the folder holding path (or being path) and its rules.
	of(path string) (root string, rules *ignoreRules, ok bool)
	rules(root string) (*ignoreRules, bool)
	setWatching(root string, watching bool, errText string)
}

// watchSink is told what the watcher saw; the Indexer is one.
type watchSink interface {
	// changed gets paths of root whose changes have settled, those still
	// on disk first.
	changed(root string, paths []string)
	// folderVanished says root itself was removed or moved away.
	folderVanished(root string)
	// ignoreFileChanged says a .memdignore or .gitignore of root changed.
	ignoreFileChanged(root string)
	// folderBack says a vanished root is a directory again.
	folderBack(root string)
	// overflowed says events were lost: every folder must be compared
	// with the store.
	overflowed()
	// storedUnder lists the stored notes under prefix: a directory that
	// went away took them with it.
	storedUnder(prefix string) []string
}

// watcher watches the folders' trees with one fsnotify watcher (one watch
// per directory: inotify is not recursive) and debounces changed paths
// before handing them to its sink, so an editor's write-temp-then-rename
// save is one change. Its run loop is the only goroutine; watchFolder and
// removeTree may be called from others.
type watcher struct {
	folders  folderTable
	sink     watchSink
	debounce time.Duration
	log      *slog.Logger
	fs       *fsnotify.Watcher

	mu       sync.Mutex
	dirs     map[string]string // watched directory -> its folder root
	awaiting map[string]string // vanished root -> the ancestor watched for it

	due     map[string]pendingPath // owned by run
	waiting atomic.Int64           // len(due), for Idle
}

type pendingPath struct {
	root string
	at   time.Time // queue once this passes with no newer change
	// renamedAway is a path whose last event moved its file away: the
	// move's other half, its new path, is a separate event that may come
	// after the debounce passed (the run loop picks the timer or the
	// next event at random, and a loaded machine lets the timer win).
	// Queued alone, the old path's note would be deleted before the new
	// path's job could move it, and the note re-indexed instead of kept.
	// So a path renamed away and gone waits one more debounce (held), by
	// when its new path is due too, and the flush queues it first.
	renamedAway, held bool
}

func newWatcher(fw *fsnotify.Watcher, folders folderTable, sink watchSink, debounce time.Duration, log *slog.Logger) *watcher {
	return &watcher{
		folders: folders, sink: sink, debounce: debounce, log: log, fs: fw,
		dirs: map[string]string{}, awaiting: map[string]string{}, due: map[string]pendingPath{},
	}
}

// debouncing is how many changed paths wait out the debounce.
func (w *watcher) debouncing() int64 { return w.waiting.Load() }

// watchFolder watches root's tree and records the outcome in its state.
func (w *watcher) watchFolder(root string) {
	if _, err := w.addTree(root, root); err != nil {
		w.folders.setWatching(root, false, "cannot watch: "+err.Error())
		w.log.Warn("watch folder", "folder", root, "err", err)
		return
	}
	w.folders.setWatching(root, true, "")
}

// addTree watches dir and every directory under it that is not ignored and
// not a symlink, and returns the note files it saw (for a directory that
// appeared with files already in it). An error watching dir itself is
// returned; errors below it are logged.
func (w *watcher) addTree(root, dir string) ([]string, error) {
	rules, ok := w.folders.rules(root)
	if !ok {
		return nil, nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			if d.Type().IsRegular() && !rules.ignored(p, false) && isNoteName(p) {
				files = append(files, p)
			}
			return nil
		}
		if p != dir && rules.ignored(p, true) {
			return filepath.SkipDir
		}
		if err := w.fs.Add(p); err != nil {
			if p == dir {
				return err
			}
			w.log.Warn("watch directory; its changes are caught at the next reconcile", "dir", p, "err", err)
			return filepath.SkipDir
		}
		w.mu.Lock()
		w.dirs[p] = root
		w.mu.Unlock()
		return nil
	})
	return files, err
}

// removeTree stops watching dir and every directory under it.
func (w *watcher) removeTree(dir string) {
	w.mu.Lock()
	var gone []string
	for d := range w.dirs {
		if d == dir || within(d, dir) {
			gone = append(gone, d)
			delete(w.dirs, d)
		}
	}
	w.mu.Unlock()
	for _, d := range gone {
		_ = w.fs.Remove(d) // already gone with the directory, often
	}
}

func (w *watcher) watched(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.dirs[dir]
	return ok
}

// run handles fsnotify's events until ctx is done.
func (w *watcher) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	// Every touch sets a deadline later than those already due, so the
	// timer, once armed for the earliest, stays right until it fires; only
	// then is the next deadline looked for (a burst of N events costs one
	// scan of the pending paths, not N).
	armed := false
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("file watcher overflowed; reconciling every folder")
				w.sink.overflowed()
			} else {
				w.log.Warn("file watcher", "err", err)
			}
		case <-timer.C:
			w.flush(time.Now())
			armed = false
		}
		if !armed {
			if next, ok := w.next(); ok {
				timer.Reset(time.Until(next))
				armed = true
			}
		}
	}
}

// handle turns one fsnotify event into debounced paths, watches for new
// directories, or a vanished folder.
func (w *watcher) handle(ev fsnotify.Event) {
	if w.awaited(ev) {
		return
	}
	root, rules, ok := w.folders.of(ev.Name)
	if !ok {
		return
	}
	path := ev.Name
	if path == root {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.sink.folderVanished(root)
		}
		return
	}
	if isIgnoreFile(root, path) {
		w.sink.ignoreFileChanged(root)
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
			if rules.ignored(path, true) {
				return
			}
			files, err := w.addTree(root, path)
			if err != nil {
				w.log.Warn("watch new directory", "dir", path, "err", err)
			}
			for _, f := range files {
				w.touch(f, root)
			}
			return
		}
	}
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.watched(path) {
		w.removeTree(path)
		w.touchStored(dirPrefix(path), root)
		return
	}
	if rules.ignored(path, false) || !isNoteName(path) {
		return
	}
	w.touch(path, root)
	if ev.Has(fsnotify.Rename) {
		p := w.due[path]
		p.renamedAway = true
		w.due[path] = p
	}
}

// gone reports whether nothing is at path any more.
func gone(path string) bool {
	_, err := os.Lstat(path)
	return err != nil
}

// touchStored debounces every stored note under prefix: a directory that was
// removed or moved away.
func (w *watcher) touchStored(prefix, root string) {
	for _, p := range w.sink.storedUnder(prefix) {
		w.touch(p, root)
	}
}

func (w *watcher) touch(path, root string) {
	w.due[path] = pendingPath{root: root, at: time.Now().Add(w.debounce)}
	w.waiting.Store(int64(len(w.due)))
}

func (w *watcher) next() (time.Time, bool) {
	var next time.Time
	for _, p := range w.due {
		if next.IsZero() || p.at.Before(next) {
			next = p.at
		}
	}
	return next, !next.IsZero()
}

// flush queues the paths whose debounce has passed: those still on disk
// first, so that a rename's new path is indexed (moved) before its old path
// is removed.
func (w *watcher) flush(now time.Time) {
	byRoot := map[string][]string{}
	for p, d := range w.due {
		if d.at.After(now) {
			continue
		}
		if d.renamedAway && !d.held && gone(p) {
			d.at, d.held = now.Add(w.debounce), true
			w.due[p] = d
			continue
		}
		byRoot[d.root] = append(byRoot[d.root], p)
		delete(w.due, p)
	}
	for root, paths := range byRoot {
		if _, ok := w.folders.rules(root); !ok {
			continue // removed while the paths waited
		}
		slices.Sort(paths)
		var present, absent []string
		for _, p := range paths {
			if gone(p) {
				absent = append(absent, p)
			} else {
				present = append(present, p)
			}
		}
		w.sink.changed(root, append(present, absent...))
	}
	w.waiting.Store(int64(len(w.due)))
}

package pipeline

import (
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// A folder that vanishes (an unmounted drive, a folder moved away and back)
// is awaited: the watcher watches its nearest existing ancestor, and when
// the folder is back it tells the sink within moments, instead of leaving
// it to the periodic reconcile.

// awaitFolder watches the nearest existing ancestor of root, which is not
// on disk, until root is back. When root is back already, the sink hears
// of it at once.
func (w *watcher) awaitFolder(root string) {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if dirExists(dir) && w.fs.Add(dir) == nil {
			w.mu.Lock()
			w.awaiting[root] = dir
			w.mu.Unlock()
			break
		}
		if filepath.Dir(dir) == dir {
			return // not even / can be watched; the periodic reconcile will find it
		}
	}
	if dirExists(root) { // back before the watch began
		w.folderBack(root)
	}
}

// awaited handles an event for an awaited folder or one of its ancestors
// (created: maybe back; the watched one removed: watch one further up),
// and reports whether it was one.
func (w *watcher) awaited(ev fsnotify.Event) bool {
	created, removed := ev.Has(fsnotify.Create), ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	var roots []string
	w.mu.Lock()
	for root, watched := range w.awaiting {
		if created && (ev.Name == root || within(root, ev.Name)) || removed && ev.Name == watched {
			roots = append(roots, root)
		}
	}
	w.mu.Unlock()
	for _, root := range roots {
		if dirExists(root) {
			w.folderBack(root)
		} else {
			w.stopAwaiting(root)
			w.awaitFolder(root) // a nearer ancestor came back
		}
	}
	return len(roots) > 0
}

func (w *watcher) folderBack(root string) {
	w.stopAwaiting(root)
	w.sink.folderBack(root)
}

// stopAwaiting stops watching root's ancestor, unless another awaited
// folder or a folder's own tree still needs that watch.
func (w *watcher) stopAwaiting(root string) {
	w.mu.Lock()
	dir, ok := w.awaiting[root]
	delete(w.awaiting, root)
	needed := false
	for _, d := range w.awaiting {
		needed = needed || d == dir
	}
	_, own := w.dirs[dir]
	w.mu.Unlock()
	if ok && !needed && !own {
		_ = w.fs.Remove(dir)
	}
}

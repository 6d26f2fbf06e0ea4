package pipeline

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// changes records what a watcher hands its sink.
type changes struct {
	mu    sync.Mutex
	calls [][]string
}

func (c *changes) changed(_ string, paths []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, slices.Clone(paths))
}
func (c *changes) folderVanished(string)       {}
func (c *changes) ignoreFileChanged(string)    {}
func (c *changes) folderBack(string)           {}
func (c *changes) overflowed()                 {}
func (c *changes) storedUnder(string) []string { return nil }

// TestRenameSplitByDebounce: a rename's two events (the old path moved
// away, the new path created) handled on either side of the debounce, as
// happens on a loaded machine, still reach the sink together, the new
// path first, so the note is moved and keeps its chunks: queued alone,
// the old path's note was deleted first and the new path re-indexed (the
// flaky TestRenameKeepsStore/over_a_stored_note).
func TestRenameSplitByDebounce(t *testing.T) {
	dir := tempDir(t)
	from, to := filepath.Join(dir, "alpha.md"), filepath.Join(dir, "sub", "gamma.txt")
	writeFile(t, to, "moved here\n") // the file is at its new path, none at the old
	folders := newFolderRegistry(testLogger())
	folders.ensure(dir)
	sink := &changes{}
	const debounce = 40 * time.Millisecond
	w := newWatcher(nil, folders, sink, debounce, testLogger())

	w.handle(fsnotify.Event{Name: from, Op: fsnotify.Rename})
	w.flush(time.Now().Add(debounce + time.Millisecond)) // the timer won: the new path's event is not handled yet
	if len(sink.calls) != 0 {
		t.Fatalf("the old path went to be removed before its new path was seen: %v", sink.calls)
	}
	w.handle(fsnotify.Event{Name: to, Op: fsnotify.Create})
	w.flush(time.Now().Add(3 * debounce))
	if want := [][]string{{to, from}}; !slices.EqualFunc(sink.calls, want, slices.Equal) {
		t.Fatalf("the sink got %v, want %v: both halves at once, the new path first", sink.calls, want)
	}

	// A note removed for good waits no longer than its debounce.
	sink.calls = nil
	w.handle(fsnotify.Event{Name: from, Op: fsnotify.Remove})
	w.flush(time.Now().Add(debounce + time.Millisecond))
	if want := [][]string{{from}}; !slices.EqualFunc(sink.calls, want, slices.Equal) {
		t.Fatalf("a removed note: the sink got %v, want %v", sink.calls, want)
	}
}

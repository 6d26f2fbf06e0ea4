package pipeline

import (
	"log/slog"
	"sync"

	"github.com/memd-dev/memd/store"
)

// folderRegistry is what the running indexer knows of each registered
// folder: its ignore rules and whether it is watched. The store holds the
// registrations themselves; the registry follows them (ensure, drop).
// Its methods are safe for concurrent use.
type folderRegistry struct {
	log *slog.Logger

	mu      sync.Mutex
	folders map[string]*folderRuntime // by root
}

type folderRuntime struct {
	rules    *ignoreRules
	watching bool
	err      string // FolderState.Error
	missed   bool   // changes were seen that could not be queued
}

func newFolderRegistry(log *slog.Logger) *folderRegistry {
	return &folderRegistry{log: log, folders: map[string]*folderRuntime{}}
}

// ensure adds root, reading its ignore files, unless it is there.
func (r *folderRegistry) ensure(root string) {
	r.mu.Lock()
	_, ok := r.folders[root]
	r.mu.Unlock()
	if ok {
		return
	}
	rules := r.loadRules(root)
	r.mu.Lock()
	if _, ok := r.folders[root]; !ok {
		r.folders[root] = &folderRuntime{rules: rules}
	}
	r.mu.Unlock()
}

// drop forgets root: its queued paths and events are ignored from now on.
func (r *folderRegistry) drop(root string) {
	r.mu.Lock()
	delete(r.folders, root)
	r.mu.Unlock()
}

// reloadRules re-reads root's ignore files after one changed.
func (r *folderRegistry) reloadRules(root string) {
	rules := r.loadRules(root)
	r.mu.Lock()
	if rt := r.folders[root]; rt != nil {
		rt.rules = rules
	}
	r.mu.Unlock()
}

func (r *folderRegistry) loadRules(root string) *ignoreRules {
	rules, err := loadIgnoreRules(root)
	if err != nil {
		r.log.Warn("read ignore file; its patterns are not applied", "folder", root, "err", err)
	}
	return rules
}

// setWatching records whether root is watched and, when not, why.
func (r *folderRegistry) setWatching(root string, watching bool, errText string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt := r.folders[root]; rt != nil {
		rt.watching, rt.err = watching, errText
	}
}

// markVanished records that root is not on disk and reports whether this
// is news (it was not marked already).
func (r *folderRegistry) markVanished(root string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.folders[root]
	if rt == nil {
		return false
	}
	news := rt.err != errVanished
	rt.watching, rt.err = false, errVanished
	return news
}

func (r *folderRegistry) watching(root string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.folders[root]
	return rt != nil && rt.watching
}

// stopWatching marks every folder unwatched: the watcher has stopped.
func (r *folderRegistry) stopWatching() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range r.folders {
		rt.watching = false
	}
}

// markMissed records that changes of root could not be queued (the store
// could not be written), so it must be walked again soon.
func (r *folderRegistry) markMissed(root string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt := r.folders[root]; rt != nil {
		rt.missed = true
	}
}

// takeMissed returns the roots marked by markMissed and clears the marks.
func (r *folderRegistry) takeMissed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for root, rt := range r.folders {
		if rt.missed {
			rt.missed = false
			out = append(out, root)
		}
	}
	return out
}

// of returns the registered folder that holds path (or is path) and its
// ignore rules.
func (r *folderRegistry) of(path string) (string, *ignoreRules, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for root, rt := range r.folders {
		if path == root || within(path, root) {
			return root, rt.rules, true
		}
	}
	return "", nil, false
}

// rules returns the ignore rules of a registered root.
func (r *folderRegistry) rules(root string) (*ignoreRules, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.folders[root]
	if rt == nil {
		return nil, false
	}
	return rt.rules, true
}

func (r *folderRegistry) roots() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.folders))
	for root := range r.folders {
		out = append(out, root)
	}
	return out
}

// state is a stored folder with what the registry knows of it.
func (r *folderRegistry) state(f store.Folder) FolderState {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := FolderState{Path: f.Path, Added: f.Added}
	if rt := r.folders[f.Path]; rt != nil {
		st.Watching, st.Error = rt.watching, rt.err
	}
	return st
}

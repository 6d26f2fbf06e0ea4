package pipeline

import (
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// Skip reasons for what a walk finds but cannot index: listed, so that a
// file or folder is never left out without a word.
const (
	// memd answers with paths as UTF-8 text (JSON on every route), so a
	// note under a name that is not UTF-8 could be found but never opened
	// from a hit; the user is told to rename it instead.
	reasonNameNotUTF8     = "the file name is not valid UTF-8; rename it to index it (memd's answers carry paths as UTF-8 text)"
	reasonUnreadablePrefx = "cannot read this folder"
)

func reasonUnreadable(err error) string {
	return fmt.Sprintf("%s: %v; its notes are kept until it can be read (fix its permissions to index it)", reasonUnreadablePrefx, unwrapPathError(err))
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// escapeName writes path with each byte that is not UTF-8 as \xNN, so a
// skip can be stored, listed and matched as text.
func escapeName(path string) string {
	if utf8.ValidString(path) {
		return path
	}
	var sb strings.Builder
	for i := 0; i < len(path); {
		r, size := utf8.DecodeRuneInString(path[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&sb, `\x%02x`, path[i])
		} else {
			sb.WriteString(path[i : i+size])
		}
		i += size
	}
	return sb.String()
}

func isUnindexableReason(reason string) bool {
	return reason == reasonNameNotUTF8 || strings.HasPrefix(reason, reasonUnreadablePrefx)
}

// recordUnindexable brings root's skips for unreadable folders and names
// that are not UTF-8 in line with a walk of the whole folder: new ones are
// recorded (and logged), those that no longer hold are cleared.
func (ix *Indexer) recordUnindexable(root string, found walk) {
	want := map[string]store.Skip{}
	now := time.Now().UTC()
	for p, f := range found.badNames {
		want[escapeName(p)] = store.Skip{Path: escapeName(p), Folder: root, Reason: reasonNameNotUTF8, Size: f.size, At: now}
	}
	for dir, err := range found.unreadable {
		want[escapeName(dir)] = store.Skip{Path: escapeName(dir), Folder: root, Reason: reasonUnreadable(err), At: now}
	}
	var put []store.Skip
	var drop []string
	if err := ix.db.View(func(tx *store.Tx) error {
		skips, err := tx.Skips()
		for _, s := range skips {
			if _, ok := want[s.Path]; !ok && s.Folder == root && isUnindexableReason(s.Reason) {
				drop = append(drop, s.Path)
			}
		}
		for path, s := range want {
			if old, err := tx.Skip(path); err != nil || old.Reason != s.Reason || old.Size != s.Size {
				put = append(put, s)
			}
		}
		return err
	}); err != nil || len(put)+len(drop) == 0 {
		return
	}
	ix.writeSkips(put, drop)
}

// recordBadNames records the skip of each changed path whose name is not
// UTF-8 (or clears it when the file is gone) and returns the other paths:
// no job can carry such a name.
func (ix *Indexer) recordBadNames(root string, paths []string) []string {
	var put []store.Skip
	var drop, rest []string
	now := time.Now().UTC()
	for _, p := range paths {
		if utf8.ValidString(p) {
			rest = append(rest, p)
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			drop = append(drop, escapeName(p))
			continue
		}
		put = append(put, store.Skip{Path: escapeName(p), Folder: root, Reason: reasonNameNotUTF8, Size: fi.Size(), At: now})
	}
	if len(put)+len(drop) > 0 {
		ix.writeSkips(put, drop)
	}
	return rest
}

func (ix *Indexer) writeSkips(put []store.Skip, drop []string) {
	var evs []memd.Event
	err := ix.db.Update(func(tx *store.Tx) error {
		evs = evs[:0]
		for _, path := range drop {
			if err := tx.DeleteSkip(path); err != nil {
				return err
			}
		}
		for _, s := range put {
			if err := tx.PutSkip(s); err != nil {
				return err
			}
			evs = append(evs, memd.Event{Type: memd.EventSkipped, Path: s.Path, Folder: s.Folder, Reason: s.Reason, At: s.At})
		}
		return nil
	})
	if err != nil {
		ix.emitError("record files that cannot be indexed", err)
		return
	}
	for _, ev := range evs {
		ix.log.Warn("not indexed", "path", ev.Path, "reason", ev.Reason)
	}
	ix.emit(evs...)
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/rank/lexical"
	"github.com/memd-dev/memd/store"
)

// indexVersions are the versions of the code that turns a file into what
// the store holds, each under its meta key. A store whose notes were made
// under any other (or, for a key it lacks, before the key existed) is
// re-indexed at start.
var indexVersions = []struct {
	key, what string
	version   int
}{
	{"lexical.version", "lexical analyzer", lexical.Version},
	{"parse.version", "note parser", parse.Version},
	{"chunk.version", "heuristic chunker", chunk.Version},
	{"fields.version", "indexed note fields", fieldsVersion},
	{"boilerplate.version", "template boilerplate rule", boilerplateVersion},
}

// Reindex queues every note file under path again, bypassing the unchanged
// check, and returns how many paths it queued. path is a registered folder,
// a folder or a note inside one, or "" for every folder. Skips under it,
// "forgotten" ones included, are cleared so those files are tried again.
//
// A stored note is marked for re-indexing in the same transaction that
// queues it (its size is set to -1), so the force survives a crash.
func (ix *Indexer) Reindex(ctx context.Context, path string) (int, error) {
	type target struct{ root, path string }
	var targets []target
	if path == "" {
		for _, root := range ix.folders.roots() {
			targets = append(targets, target{root, root})
		}
		slices.SortFunc(targets, func(a, b target) int { return strings.Compare(a.root, b.root) })
	} else {
		p := canonicalPath(path)
		root, _, ok := ix.folders.of(p)
		if !ok {
			return 0, fmt.Errorf("reindex %s: %w: it is not in any folder memd indexes", path, ErrUnknownFolder)
		}
		targets = append(targets, target{root, p})
	}

	ix.writes.Lock()
	defer ix.writes.Unlock()
	total := 0
	for _, t := range targets {
		n, err := ix.reindexPath(ctx, t.root, t.path)
		total += n
		if err != nil {
			return total, fmt.Errorf("reindex %s: %w", t.path, err)
		}
	}
	ix.queue.notify()
	return total, nil
}

// reindexPath forces every note under p (a file or a directory in root).
func (ix *Indexer) reindexPath(ctx context.Context, root, p string) (int, error) {
	rules, ok := ix.folders.rules(root)
	if !ok {
		return 0, nil
	}
	var files map[string]foundFile
	prefix, single := p, false
	if dirExists(p) {
		found, err := walkNotes(ctx, p, rules)
		if err != nil {
			return 0, err
		}
		files = found.files
		if p == root {
			defer ix.recordUnindexable(root, found) // the skips below are cleared
		}
		prefix = dirPrefix(p)
	} else {
		single = true
		files = map[string]foundFile{}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && isNoteName(p) {
			files[p] = foundFile{fs.FileInfoToDirEntry(fi)}
		}
	}
	queued := map[string]bool{}
	err := ix.db.Update(func(tx *store.Tx) error {
		var notes []*store.Note
		if single {
			if n, _ := tx.LookupNote(p); n != nil {
				notes = append(notes, n)
			}
			if err := tx.DeleteSkip(p); err != nil {
				return err
			}
		} else {
			if err := tx.ForEachNote(prefix, func(n *store.Note) error {
				c := *n
				notes = append(notes, &c)
				return nil
			}); err != nil {
				return err
			}
			if err := tx.DeleteSkipsUnder(prefix); err != nil {
				return err
			}
		}
		for _, n := range notes {
			if err := tx.TouchNote(n, -1, time.Time{}); err != nil {
				return err
			}
		}
		paths := make([]string, 0, len(files)+len(notes))
		for f := range files {
			paths = append(paths, f)
		}
		slices.Sort(paths)
		for _, n := range notes {
			if _, ok := files[n.Path]; !ok {
				paths = append(paths, n.Path)
			}
		}
		for _, q := range paths {
			if err := tx.EnqueueJob(q, root); err != nil {
				return err
			}
			queued[q] = true
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(queued), nil
}

// Forget removes the note at path from the index and keeps it out, as a
// skip with reason "forgotten", until the file changes or is re-indexed.
// A path in no registered folder gives ErrUnknownFolder; a path that is
// neither indexed nor on disk gives store.ErrNotFound.
func (ix *Indexer) Forget(ctx context.Context, path string) error {
	p := canonicalNotePath(path)
	root, _, ok := ix.folders.of(p)
	if !ok || p == root {
		return errorOf(ErrUnknownFolder, "%s is in no folder memd indexes; memctl status lists them", path)
	}
	ix.writes.Lock()
	defer ix.writes.Unlock()
	fi, statErr := os.Lstat(p)
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("forget %s: %w", p, statErr)
	}
	var evs []memd.Event
	var eff *txEffects
	err := ix.db.Update(func(tx *store.Tx) error {
		eff = &txEffects{}
		removed, err := removeNote(tx, p, eff)
		if err != nil {
			return err
		}
		if err := eff.boiler.settle(tx, true); err != nil {
			return err
		}
		if !removed && statErr != nil {
			return errorOf(store.ErrNotFound, "%s is not indexed and there is no such file", p)
		}
		size := int64(0)
		if statErr == nil {
			size = fi.Size()
		}
		now := time.Now().UTC()
		if removed {
			evs = append(evs, memd.Event{Type: memd.EventRemoved, Path: p, Folder: root, Reason: ReasonForgotten, At: now})
		}
		if err := tx.PutSkip(store.Skip{Path: p, Folder: root, Reason: ReasonForgotten, Size: size, At: now}); err != nil {
			return err
		}
		c := tx.Counts()
		for i := range evs {
			evs[i].Pending, evs[i].Notes = c.Pending, c.Notes
		}
		return nil
	})
	if err != nil {
		var said *kindError
		if errors.As(err, &said) {
			return err // it names the note already
		}
		return fmt.Errorf("forget %s: %w", p, err)
	}
	ix.afterCommit(eff)
	ix.emit(evs...)
	return nil
}

// checkVersions re-indexes everything when the stored notes were made by
// another version of the analyzer, parser or chunker, then records these.
func (ix *Indexer) checkVersions(ctx context.Context) error {
	var changed []string
	var notes int
	if err := ix.db.View(func(tx *store.Tx) error {
		for _, v := range indexVersions {
			if got, want := string(tx.Meta(v.key)), strconv.Itoa(v.version); got != want {
				changed = append(changed, fmt.Sprintf("%s %q to %s", v.what, got, want))
			}
		}
		notes = tx.Counts().Notes
		return nil
	}); err != nil {
		return err
	}
	if len(changed) == 0 {
		return nil
	}
	if notes > 0 {
		ix.log.Info("indexing rules changed; re-indexing every note", "changed", strings.Join(changed, ", "))
		// A store made before block counts were kept has notes but no
		// counts; the re-index takes each note's stored blocks off them.
		if err := ix.db.Update(func(tx *store.Tx) error { return tx.RecountBlocks() }); err != nil {
			return fmt.Errorf("count the notes' blocks for new indexing rules: %w", err)
		}
		if _, err := ix.Reindex(ctx, ""); err != nil {
			return fmt.Errorf("re-index for new indexing rules (%s): %w", strings.Join(changed, ", "), err)
		}
	}
	return ix.db.Update(func(tx *store.Tx) error {
		for _, v := range indexVersions {
			if err := tx.SetMeta(v.key, []byte(strconv.Itoa(v.version))); err != nil {
				return err
			}
		}
		return nil
	})
}

package memory

import (
	"slices"
	"strings"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
)

// scope is the part of the store one recall answers from: the chunks of
// the notes that pass its filters. It lives for one recall (one or two read
// transactions) and decodes each note it is asked about once.
type scope struct {
	filters memd.Filters
	prefix  string                 // pathPrefix(filters)
	notes   map[string]*store.Note // read so far; nil for a note that is gone
	// chunks, once readNotes has run with filters, is every chunk in
	// scope, and summaries the summary of each of their notes that has one
	// (all a hit takes from a note), by path. chunks nil means a chunk's
	// path, then its note, is read to tell.
	chunks    map[uint64]struct{}
	summaries map[string]string
	// hitNotes, with one hit per note asked for, holds the notes that have
	// their hit; nil when every chunk may be a hit.
	hitNotes map[string]bool
}

func newScope(f memd.Filters, perNote bool) *scope {
	sc := &scope{filters: f, prefix: pathPrefix(f), notes: map[string]*store.Note{}}
	if perNote {
		sc.hitNotes = map[string]bool{}
	}
	return sc
}

// readNotes reads up front the notes the filters may pass and keeps the
// chunks of those they do, so that whether a chunk is in scope is a set
// lookup: the vector scan asks about every vector. With no filters it
// reads nothing, since every chunk is in scope.
func (sc *scope) readNotes(tx *store.Tx) error {
	f := sc.filters
	if noFilters(f) {
		return nil
	}
	sc.chunks, sc.summaries = map[uint64]struct{}{}, map[string]string{}
	return tx.ForEachNote(sc.prefix, func(n *store.Note) error {
		if !matchNote(f, n) {
			return nil
		}
		for _, id := range n.Chunks {
			sc.chunks[id] = struct{}{}
		}
		if n.Summary != "" {
			sc.summaries[n.Path] = n.Summary
		}
		return nil
	})
}

// accepts is readNotes' chunks as the vector scan's filter; nil accepts
// all.
func (sc *scope) accepts() func(chunk uint64) bool {
	if sc.chunks == nil {
		return nil
	}
	return func(c uint64) bool { _, ok := sc.chunks[c]; return ok }
}

// keep drops from scores, in place, the chunks readNotes found out of
// scope; scores itself is overwritten.
func (sc *scope) keep(scores []rank.Scored) []rank.Scored {
	if sc.chunks == nil {
		return scores
	}
	return slices.DeleteFunc(scores, func(s rank.Scored) bool { _, ok := sc.chunks[s.Chunk]; return !ok })
}

// holds reports whether chunk id's note passes the filters.
func (sc *scope) holds(tx *store.Tx, id uint64) bool {
	if sc.chunks != nil {
		_, ok := sc.chunks[id]
		return ok
	}
	return noFilters(sc.filters) || sc.notePasses(tx, id)
}

// firstOfNote reports, with one hit per note, whether chunk id is the
// first asked about of its note (notes holds the notes seen); without
// that rule every chunk is.
func (sc *scope) firstOfNote(tx *store.Tx, id uint64, notes map[string]bool) bool {
	if sc.hitNotes == nil {
		return true
	}
	path, err := tx.ChunkPath(id)
	if err != nil || notes[path] {
		return false
	}
	notes[path] = true
	return true
}

// hit reads chunk id as a hit scored score, if the chunk and its note
// exist and are in scope and, with one hit per note, its note has none yet:
// callers ask best chunk first, so a note's hit is its best chunk.
func (sc *scope) hit(tx *store.Tx, id uint64, score float64) (memd.Hit, bool) {
	h, ok := sc.chunkHit(tx, id, score)
	if !ok || sc.hitNotes == nil {
		return h, ok
	}
	if sc.hitNotes[h.Path] {
		return memd.Hit{}, false
	}
	sc.hitNotes[h.Path] = true
	return h, true
}

// chunkHit is hit without the one-per-note rule.
func (sc *scope) chunkHit(tx *store.Tx, id uint64, score float64) (memd.Hit, bool) {
	if !sc.holds(tx, id) {
		return memd.Hit{}, false
	}
	c, err := tx.Chunk(id)
	if err != nil {
		return memd.Hit{}, false // a vector of a chunk this snapshot does not hold
	}
	if sc.chunks != nil {
		return hitOf(c, sc.summaries[c.Path], score), true
	}
	n := sc.note(tx, c.Path)
	if n == nil {
		return memd.Hit{}, false
	}
	return hitOf(c, n.Summary, score), true
}

// notePasses reports whether chunk id's note passes the filters, reading
// the chunk's path alone: a narrow filter rejects most chunks, and most
// by their path without their note.
func (sc *scope) notePasses(tx *store.Tx, id uint64) bool {
	path, err := tx.ChunkPath(id)
	if err != nil || !strings.HasPrefix(path, sc.prefix) {
		return false
	}
	n := sc.note(tx, path)
	return n != nil && matchNote(sc.filters, n)
}

// note is the note at path, nil when it is gone or unreadable.
func (sc *scope) note(tx *store.Tx, path string) *store.Note {
	n, ok := sc.notes[path]
	if !ok {
		n, _ = tx.LookupNote(path)
		sc.notes[path] = n
	}
	return n
}

// noFilters reports whether f passes every chunk.
func noFilters(f memd.Filters) bool {
	return f.Folder == "" && f.PathPrefix == "" && len(f.Tags) == 0 && f.ModifiedAfter.IsZero() && f.ModifiedBefore.IsZero()
}

// pathPrefix is what the path of every note f passes starts with: its path
// prefix when that lies in its folder, else its folder's (a note lives
// under its folder).
func pathPrefix(f memd.Filters) string {
	prefix := f.PathPrefix
	if folder := strings.TrimRight(f.Folder, "/"); folder != "" && !strings.HasPrefix(prefix, folder+"/") {
		prefix = folder + "/"
	}
	return prefix
}

// matchNote reports whether note n passes f; its chunks share its folder
// and path.
func matchNote(f memd.Filters, n *store.Note) bool {
	if f.Folder != "" && n.Folder != strings.TrimRight(f.Folder, "/") {
		return false
	}
	if f.PathPrefix != "" && !strings.HasPrefix(n.Path, f.PathPrefix) {
		return false
	}
	for _, t := range f.Tags {
		if !hasTag(n.Tags, t) {
			return false
		}
	}
	if !f.ModifiedAfter.IsZero() && !n.ModTime.After(f.ModifiedAfter) {
		return false
	}
	if !f.ModifiedBefore.IsZero() && !n.ModTime.Before(f.ModifiedBefore) {
		return false
	}
	return true
}

// hasTag reports whether tags hold tag or a tag under it in the tag tree:
// "garden" is on a note tagged "garden/bees". tag is taken as a person
// writes it: any case, with or without '#', with or without a final '/'.
func hasTag(tags []string, tag string) bool {
	tag = strings.TrimSuffix(strings.ToLower(strings.TrimPrefix(tag, "#")), "/")
	return slices.ContainsFunc(tags, func(t string) bool {
		return t == tag || strings.HasPrefix(t, tag) && strings.HasPrefix(t[len(tag):], "/")
	})
}

package pipeline

import (
	"sync"

	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// Chunker names recorded in store.Note.Chunker.
const (
	ChunkerModel     = "model"     // the generator with the chunk adapter cut the note
	ChunkerFallback  = "fallback"  // the model's answer could not be repaired; the heuristic cut it
	ChunkerHeuristic = "heuristic" // no chunk model was configured
)

// txEffects collects what a write transaction did that must be told to
// others once it commits: vectors for the vector writer and chunker count changes.
// A transaction that is retried starts from a fresh one.
type txEffects struct {
	removed  []uint64 // chunks gone, with their vectors
	puts     []vector.Put
	chunkers map[string]int // note count change per chunker name
	recount  bool           // chunker counts must be read again
	// unembedded: a note was written without vectors although an
	// embedder is configured; the re-embed loop picks it up.
	unembedded bool
	enrich     bool // a note was queued for the model stages
	// boiler is what the transaction must check of boilerplate before it
	// commits (settle).
	boiler boilerplateSettle
}

func (e *txEffects) chunker(name string, delta int) {
	if e.chunkers == nil {
		e.chunkers = map[string]int{}
	}
	e.chunkers[name] += delta
}

// removeNote deletes the note at path (the store drops its chunks' vectors
// with them), records it in eff and reports whether there was one.
func removeNote(tx *store.Tx, path string, eff *txEffects) (bool, error) {
	n, err := tx.DeleteNote(path)
	if n == nil || err != nil {
		return false, err
	}
	eff.noteRemoved(n)
	return true, nil
}

// noteRemoved records a deleted note: its chunks are removed for the vector
// writer and it no longer counts for its chunker. A nil n (nothing was
// stored there) records nothing.
func (e *txEffects) noteRemoved(n *store.Note) {
	if n == nil {
		return
	}
	e.removed = append(e.removed, n.Chunks...)
	e.chunker(n.Chunker, -1)
}

// afterCommit tells the vector writer and the chunker counts what a
// committed transaction did.
func (ix *Indexer) afterCommit(eff *txEffects) {
	ix.tally.apply(eff)
	if eff.enrich {
		ix.enricher.notify()
	}
	if ix.vectors != nil {
		ix.vectors.Committed(eff.removed, eff.puts, eff.unembedded)
	}
}

// chunkerTally counts notes by Chunker. It is read from the store once,
// under the write lock so no commit runs meanwhile, and then kept by the deltas
// of each commit.
type chunkerTally struct {
	mu     sync.Mutex
	loaded bool
	counts map[string]int
}

// startEmpty marks the tally loaded when db holds no note yet, so that a
// first index's status polls need not read back every note it wrote (1%
// of indexing the Dendron vault). No commit runs before the indexer does.
func (t *chunkerTally) startEmpty(db *store.DB) {
	var notes int
	if db.View(func(tx *store.Tx) error { notes = tx.Counts().Notes; return nil }) != nil || notes != 0 {
		return
	}
	t.mu.Lock()
	t.counts, t.loaded = map[string]int{}, true
	t.mu.Unlock()
}

func (t *chunkerTally) apply(eff *txEffects) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if eff.recount {
		t.loaded = false
	}
	if !t.loaded {
		return
	}
	for name, d := range eff.chunkers {
		t.counts[name] = max(0, t.counts[name]+d)
	}
}

// ChunkerCounts returns how many stored notes the chunk model cut, how many
// the heuristic cut after the model's answer could not be repaired, and how
// many the heuristic cut because no chunk model was configured. The first
// call reads every note; later ones are O(1).
func (ix *Indexer) ChunkerCounts() (model, fallback, heuristic int) {
	ix.tally.mu.Lock()
	loaded := ix.tally.loaded
	ix.tally.mu.Unlock()
	if !loaded {
		ix.writes.Lock()
		counts := map[string]int{}
		err := ix.db.View(func(tx *store.Tx) error {
			return tx.ForEachNote("", func(n *store.Note) error {
				counts[n.Chunker]++
				return nil
			})
		})
		ix.tally.mu.Lock()
		if err == nil {
			ix.tally.counts, ix.tally.loaded = counts, true
		}
		ix.tally.mu.Unlock()
		ix.writes.Unlock()
		if err != nil {
			ix.log.Warn("count notes by chunker", "err", err)
		}
	}
	ix.tally.mu.Lock()
	defer ix.tally.mu.Unlock()
	c := ix.tally.counts
	return c[ChunkerModel], c[ChunkerFallback], c[ChunkerHeuristic] + c[""]
}

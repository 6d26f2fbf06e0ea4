package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/pause"
	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
	"github.com/memd-dev/memd/store"
)

// enricher is the second phase of indexing. The worker stores a changed
// note at once with the heuristic's chunks, findable by keyword, and marks
// it on the store's enrich queue in the same transaction; the enricher
// then runs the model stages (chunk, summarize, embed) in the background
// and replaces the note's chunks, summary and vectors in one transaction.
// Recall sees a note either as the heuristic cut it or fully enriched,
// never half; a crash leaves the mark, and the next start resumes.
type enricher struct {
	db     *store.DB
	stages *modelStages
	log    *slog.Logger
	// commitMu is the Indexer's write lock: commits do not interleave with a
	// batch, Forget, Reindex or RemoveFolder.
	commitMu *writeLock
	// busy is the Indexer's count of work under way, held from a commit
	// until committed has told the rest of memd: the commit takes the
	// notes off the enrich queue, and an Indexer that looked idle in
	// between would answer WaitIdle before the vectors serve.
	busy      *atomic.Int64
	committed func(eff *txEffects, evs []memd.Event, requeued bool)

	wake   chan struct{} // capacity 1: notes were queued
	terms  termCounter   // owned by run
	parser parse.Parser  // owned by run
	cutter chunk.Cutter  // owned by run
}

// stale is a queued note the enricher cannot enrich as stored: its file
// changed, went or cannot be read. Its mark goes, and a job brings the
// note in line with the file (and marks it again if it is still a note).
type stale struct{ path, folder string }

func (e *enricher) notify() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// run enriches queued notes until ctx is done, backing off after failures.
func (e *enricher) run(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		n, err := e.round(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			e.log.Warn("enrich notes with the models; they keep their heuristic chunks until it works", "err", err)
			pause.For(ctx, time.Duration(min(failures, 30))*time.Second)
		case n == 0:
			failures = 0
			select {
			case <-ctx.Done():
			case <-e.wake:
			}
		default:
			failures = 0
		}
	}
}

// round enriches up to 2×Config.Stages queued notes and returns how many
// it took from the queue.
func (e *enricher) round(ctx context.Context) (int, error) {
	queued, err := e.queued()
	if err != nil || len(queued) == 0 {
		return 0, err
	}
	outs, stales := e.read(queued)
	if err := e.stages.run(ctx, outs); err != nil || ctx.Err() != nil {
		return 0, err
	}
	return len(queued), e.commit(outs, stales)
}

// queuedNote is a path on the enrich queue and its stored note, nil when
// the note is gone, with the note's boilerplate as stored.
type queuedNote struct {
	path   string
	note   *store.Note
	boiler boilerplate
}

// queued reads the next round's notes off the enrich queue, in one read
// transaction for the round.
func (e *enricher) queued() ([]queuedNote, error) {
	var out []queuedNote
	err := e.db.View(func(tx *store.Tx) error {
		for _, path := range tx.EnrichQueue("", 2*e.stages.cfg.Stages) {
			n, err := tx.LookupNote(path)
			if err != nil {
				return err
			}
			q := queuedNote{path: path, note: n}
			if n != nil {
				if q.boiler, err = storedBoilerplate(tx, n.Folder, n.Blocks); err != nil {
					return err
				}
			}
			out = append(out, q)
		}
		return nil
	})
	return out, err
}

// read reads and parses the queued notes' files. A note whose file no
// longer matches it is stale.
func (e *enricher) read(queued []queuedNote) ([]outcome, []stale) {
	var outs []outcome
	var stales []stale
	for _, q := range queued {
		if q.note == nil {
			stales = append(stales, stale{path: q.path})
			continue
		}
		o, ok := e.parse(q.note, q.boiler)
		if !ok {
			stales = append(stales, stale{q.path, q.note.Folder})
			continue
		}
		outs = append(outs, o)
	}
	return outs, stales
}

// parse reads the file of stored note n and parses it for the stages,
// boiler its boilerplate; it fails when the file is not the content n was
// stored from.
func (e *enricher) parse(n *store.Note, boiler boilerplate) (outcome, bool) {
	var dirs dirOpener
	defer dirs.close()
	file, err := dirs.openNote(n.Folder, n.Path)
	if err != nil {
		return outcome{}, false
	}
	defer file.close()
	f, err := readNote(file, e.stages.cfg.MaxFileBytes)
	if err != nil || f.hash != n.Hash {
		return outcome{}, false
	}
	pn, decided := parseFile(&e.parser, &outcome{job: store.Job{Path: n.Path}}, f.content)
	if decided {
		return outcome{}, false
	}
	j := store.Job{Path: n.Path, Folder: n.Folder}
	o := outcome{job: j, kind: outPut, note: newNote(j, f, pn), parsed: pn, boiler: boiler}
	if len(o.boiler) > 0 {
		o.note.Summary = leadSummary(pn, o.boiler)
	}
	if !e.stages.chunkOn {
		cfg := e.stages.cfg
		o.chunks = newChunks(pn, e.cutter.Heuristic(pn, cfg.Chunk), &e.terms, cfg, o.boiler)
	}
	return o, true
}

// commit replaces each note still stored as it was read, and still marked,
// with its enriched version, and drops the stale marks, in one transaction.
func (e *enricher) commit(outs []outcome, stales []stale) error {
	e.commitMu.Lock()
	defer e.commitMu.Unlock()
	e.busy.Add(1)
	defer e.busy.Add(-1)
	var eff *txEffects
	var evs []memd.Event
	err := e.db.Update(func(tx *store.Tx) error {
		eff, evs = &txEffects{}, nil
		for i := range outs {
			o := &outs[i]
			n, err := tx.LookupNote(o.note.Path)
			if err != nil {
				return err
			}
			if n == nil || n.Hash != o.note.Hash || !tx.Enriching(o.note.Path) {
				continue // rewritten or removed meanwhile: the newer write wins
			}
			same, err := o.boiler.matches(tx, n.Folder, n.Blocks)
			if err != nil {
				return err
			}
			if !same {
				continue // its boilerplate changed meanwhile: still marked, the next round weighs it anew
			}
			if err := writeNote(tx, o, eff); err != nil {
				return err
			}
		}
		for _, s := range stales {
			if err := e.drop(tx, s); err != nil {
				return err
			}
		}
		c := tx.Counts()
		evs = append(evs, memd.Event{Type: memd.EventProgress, Pending: c.Pending, Notes: c.Notes, At: time.Now().UTC()})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store enriched notes: %w", err)
	}
	e.committed(eff, evs, len(stales) > 0)
	return nil
}

func (e *enricher) drop(tx *store.Tx, s stale) error {
	if err := tx.FinishEnrich(s.path); err != nil {
		return err
	}
	if s.folder == "" {
		return nil
	}
	return tx.EnqueueJob(s.path, s.folder)
}

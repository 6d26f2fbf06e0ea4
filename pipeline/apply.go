package pipeline

import (
	"errors"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
)

// apply writes one outcome in tx, finishes its job (or queues it again)
// and returns the events to send once tx commits. folders holds the folder
// roots tx has found registered, so a batch reads each once.
func apply(tx *store.Tx, o *outcome, eff *txEffects, folders map[string]bool) ([]memd.Event, error) {
	o.retried, o.indexed = false, false
	if !folders[o.job.Folder] {
		if _, err := tx.Folder(o.job.Folder); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, tx.FinishJob(o.job) // the folder was removed
			}
			return nil, err
		}
		folders[o.job.Folder] = true
	}
	w := noteWrite{tx: tx, o: o, eff: eff, now: time.Now().UTC()}
	var evs []memd.Event
	var err error
	switch o.kind {
	case outDone:
	case outRemove:
		evs, err = w.remove()
	case outSkip:
		evs, err = w.skip()
	case outRefresh:
		err = w.refresh()
	case outMove:
		evs, err = w.move()
	case outPut:
		evs, err = w.put()
	case outRetry:
		evs, err = w.retryOrSkip()
	}
	if err != nil || o.retried {
		return nil, err
	}
	return evs, tx.FinishJob(o.job)
}

// noteWrite is one outcome being written in a transaction.
type noteWrite struct {
	tx  *store.Tx
	o   *outcome
	eff *txEffects
	now time.Time
}

func (w noteWrite) event(t string) memd.Event {
	return memd.Event{Type: t, Path: w.o.job.Path, Folder: w.o.job.Folder, Reason: w.o.reason, At: w.now}
}

// remove deletes the stored note and any skip: the file is gone or no
// longer a note.
func (w noteWrite) remove() ([]memd.Event, error) {
	removed, err := removeNote(w.tx, w.o.job.Path, w.eff)
	if err != nil {
		return nil, err
	}
	var evs []memd.Event
	if removed {
		evs = append(evs, w.event(memd.EventRemoved))
	}
	return evs, w.tx.DeleteSkip(w.o.job.Path)
}

// skip deletes the stored note and records why the file is not indexed.
func (w noteWrite) skip() ([]memd.Event, error) {
	if _, err := removeNote(w.tx, w.o.job.Path, w.eff); err != nil {
		return nil, err
	}
	return w.putSkip()
}

func (w noteWrite) putSkip() ([]memd.Event, error) {
	j := w.o.job
	s := store.Skip{Path: j.Path, Folder: j.Folder, Reason: w.o.reason, Size: w.o.size, At: w.now}
	if err := w.tx.PutSkip(s); err != nil {
		return nil, err
	}
	return []memd.Event{w.event(memd.EventSkipped)}, nil
}

// refresh stores the new size and mtime of a note whose content is the same.
func (w noteWrite) refresh() error {
	n, err := w.tx.Note(w.o.job.Path)
	if err != nil {
		return err
	}
	if err := w.tx.TouchNote(n, w.o.note.Size, w.o.note.ModTime); err != nil {
		return err
	}
	return w.tx.DeleteSkip(w.o.job.Path)
}

// move moves the stored note of the path renamed from to the job's path,
// chunks and ids kept. When that note went earlier in the batch, the job is
// queued again to be indexed in full.
func (w noteWrite) move() ([]memd.Event, error) {
	o := w.o
	old, err := w.tx.LookupNote(o.from)
	if err != nil || old == nil || old.Hash != o.note.Hash {
		o.retried = true
		return nil, w.tx.RetryJob(o.job)
	}
	replaced, err := w.tx.MoveNote(old, o.note)
	if err != nil {
		return nil, err
	}
	if old.Folder != o.note.Folder {
		w.eff.boiler.moved = append(w.eff.boiler.moved, o.note.Path)
	}
	w.eff.noteRemoved(replaced)
	if err := w.tx.DeleteSkip(o.job.Path); err != nil {
		return nil, err
	}
	o.indexed = true
	rm := w.event(memd.EventRemoved)
	rm.Path = o.from
	ev := w.event(memd.EventIndexed)
	ev.Chunks = len(o.note.Chunks)
	ev.Reason = "renamed from " + o.from
	return []memd.Event{rm, ev}, nil
}

// put writes the note with its chunks, replacing the stored one, and
// queues it for the model stages when they run.
func (w noteWrite) put() ([]memd.Event, error) {
	o := w.o
	if err := writeNote(w.tx, o, w.eff); err != nil {
		return nil, err
	}
	if err := w.tx.DeleteSkip(o.job.Path); err != nil {
		return nil, err
	}
	o.indexed = true
	ev := w.event(memd.EventIndexed)
	ev.Chunks = len(o.chunks)
	return []memd.Event{ev}, nil
}

// retryOrSkip queues a job that failed for a transient cause again, until
// its attempts are spent; then the file is skipped with the cause.
func (w noteWrite) retryOrSkip() ([]memd.Event, error) {
	if w.o.job.Attempts+1 < maxAttempts {
		w.o.retried = true
		return nil, w.tx.RetryJob(w.o.job)
	}
	return w.putSkip()
}

// writeNote stores o's note with its chunks in tx, replacing the stored
// one, and either queues it for the model stages or writes the vectors
// they made.
func writeNote(tx *store.Tx, o *outcome, eff *txEffects) error {
	replaced, err := tx.PutNote(o.note, o.chunks)
	if err != nil {
		return err
	}
	eff.noteRemoved(replaced)
	eff.boiler.wrote(o.note, o.boiler)
	eff.chunker(o.note.Chunker, 1)
	if o.enrich {
		eff.enrich = true
		return tx.QueueEnrich(o.note.Path)
	}
	return putVectors(tx, o, eff)
}

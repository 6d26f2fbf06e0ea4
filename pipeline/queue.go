package pipeline

import (
	"slices"
	"sync"

	"github.com/memd-dev/memd/store"
)

// jobQueue is the store's durable job queue as the indexer fills and drains
// it: paths are queued in one transaction and wake the worker. While a
// batch is open (between reading its jobs and its commit) it remembers the
// paths that changed: such a change finds its job still queued and adds
// nothing, so the batch queues them again after its commit. Two batches may
// be open at once: one committing, the next being read.
type jobQueue struct {
	db   *store.DB
	wake chan struct{} // capacity 1: jobs were queued

	mu   sync.Mutex
	open []*batchWindow
}

// batchWindow is one open batch's record of the paths that changed.
type batchWindow struct{ redo map[string]bool }

func newJobQueue(db *store.DB) *jobQueue {
	return &jobQueue{db: db, wake: make(chan struct{}, 1)}
}

// add queues paths of folder root in one transaction and wakes the worker.
func (q *jobQueue) add(root string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	err := q.db.Update(func(tx *store.Tx) error {
		for _, p := range paths {
			if err := tx.EnqueueJob(p, root); err != nil {
				return err
			}
		}
		return nil
	})
	q.notify()
	return err
}

// notify wakes the worker: jobs were queued.
func (q *jobQueue) notify() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// changed records paths about to be queued because their files changed.
func (q *jobQueue) changed(paths []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, w := range q.open {
		for _, p := range paths {
			w.redo[p] = true
		}
	}
}

// openBatch starts recording changed paths for a batch.
func (q *jobQueue) openBatch() *batchWindow {
	w := &batchWindow{redo: map[string]bool{}}
	q.mu.Lock()
	q.open = append(q.open, w)
	q.mu.Unlock()
	return w
}

// closeBatch stops recording for w and returns the paths that changed.
func (q *jobQueue) closeBatch(w *batchWindow) map[string]bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.open = slices.DeleteFunc(q.open, func(o *batchWindow) bool { return o == w })
	return w.redo
}

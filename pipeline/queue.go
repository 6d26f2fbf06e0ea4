package pipeline

import (
	"sync"

	"github.com/memd-dev/memd/store"
)

// jobQueue is the store's durable job queue as the indexer fills and drains
// it: paths are queued in one transaction and wake the worker. While a
// batch is open (between reading its jobs and its commit) it remembers the
// paths that changed: such a change finds its job still queued and adds
// nothing, so the batch queues them again after its commit.
type jobQueue struct {
	db   *store.DB
	wake chan struct{} // capacity 1: jobs were queued

	mu      sync.Mutex
	batched bool            // a batch is open
	redo    map[string]bool // paths changed while it was open
}

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
	if q.batched {
		for _, p := range paths {
			q.redo[p] = true
		}
	}
}

// openBatch starts recording changed paths.
func (q *jobQueue) openBatch() {
	q.mu.Lock()
	q.batched, q.redo = true, map[string]bool{}
	q.mu.Unlock()
}

// closeBatch stops recording and returns the paths that changed.
func (q *jobQueue) closeBatch() map[string]bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	redo := q.redo
	q.batched, q.redo = false, nil
	return redo
}

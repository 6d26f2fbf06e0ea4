package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// Indexer keeps the store in line with the registered folders: it reconciles
// them at start and every Config.Reconcile, watches them, queues changed
// paths as durable jobs and indexes them in group-committed batches; with
// models configured, it enriches each note in the background afterwards.
//
// It wires parts that know little of each other: the folder registry, the
// watcher (which reads the registry as a folderTable and reports to the
// Indexer as its watchSink), the job queue, the batch worker (reporting
// through batchHost), the model stages and the enricher.
//
// All methods are safe for concurrent use. Folder methods work before Run
// too (their jobs wait in the store's queue); watching and indexing happen
// only while Run runs. Run may be called once.
type Indexer struct {
	db  *store.DB
	cfg Config
	log *slog.Logger

	folders  *folderRegistry
	queue    *jobQueue
	stages   *modelStages
	worker   *batchWorker
	enricher *enricher
	events   broadcaster
	indexed  atomic.Int64
	started  chan struct{} // closed when Run begins
	reqs     chan string   // folder roots to reconcile soon

	folderMu sync.Mutex // serializes AddFolder and RemoveFolder
	writes   writeLock  // a batch, from reading its jobs to its commit, and an enrichment's commit, against Forget, Reindex, RemoveFolder

	busy atomic.Int64 // batches and reconciles under way

	vectors *vector.Writer // nil without an embedder
	tally   chunkerTally

	mu  sync.Mutex
	ran bool
	w   *watcher // non-nil while Run runs
}

// NewIndexer returns an indexer over db. It does nothing until Run or a
// folder method is called.
func NewIndexer(db *store.DB, cfg Config) *Indexer {
	cfg = cfg.withDefaults()
	log := cfg.Logger.With("component", "pipeline")
	ix := &Indexer{
		db:      db,
		cfg:     cfg,
		log:     log,
		folders: newFolderRegistry(log),
		queue:   newJobQueue(db),
		stages:  newModelStages(cfg, log),
		started: make(chan struct{}),
		reqs:    make(chan string, 16),
	}
	if e := cfg.Embedder; e != nil {
		ix.vectors = vector.NewWriter(db, e, vector.WriterConfig{
			Serving: cfg.Vectors, Logger: ix.log,
			OnEmbed: func(chunks, tokens int, took time.Duration) { ix.stages.stats.embed.add(chunks, tokens, 0, took) },
			OnError: func(what string, err error) { ix.emitError(what, err) },
		})
		ix.stages.vectors = ix.vectors
	}
	ix.worker = &batchWorker{
		db: db, cfg: cfg, log: log, queue: ix.queue, folders: ix.folders, enrich: ix.stages.on(),
		writes: &ix.writes, busy: &ix.busy, host: ix,
	}
	ix.enricher = &enricher{
		db: db, stages: ix.stages, log: log, commitMu: &ix.writes, busy: &ix.busy, committed: ix.enriched,
		wake: make(chan struct{}, 1),
	}
	if err := ix.loadFolders(); err != nil {
		ix.log.Warn("read registered folders", "err", err)
	}
	ix.tally.startEmpty(db)
	return ix
}

// Run watches and indexes until ctx is done. At start it re-indexes
// everything if the lexical analyzer changed, then reconciles and watches
// every registered folder while the worker drains the queue. It returns nil
// after ctx is done, once the transaction under way has committed and every
// goroutine it started has stopped; jobs not yet committed stay queued.
func (ix *Indexer) Run(ctx context.Context) error {
	ix.mu.Lock()
	if ix.ran {
		ix.mu.Unlock()
		return errors.New("pipeline: Run called twice")
	}
	ix.ran = true
	ix.mu.Unlock()
	defer ix.events.close()
	ix.busy.Add(1) // until the start-up reconcile is done
	close(ix.started)

	fw, err := ix.startUp(ctx)
	if err != nil {
		ix.busy.Add(-1)
		return err
	}
	w := newWatcher(fw, ix.folders, ix, ix.cfg.Debounce, ix.log)
	ix.mu.Lock()
	ix.w = w
	ix.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { w.run(ctx) })
	wg.Go(func() { ix.worker.run(ctx) })
	wg.Go(func() { ix.reconcileLoop(ctx) })
	if ix.stages.on() {
		wg.Go(func() { ix.enricher.run(ctx) })
	}
	if ix.vectors != nil {
		wg.Go(func() { ix.vectors.Run(ctx) })
	}
	wg.Wait()

	ix.mu.Lock()
	ix.w = nil
	ix.mu.Unlock()
	ix.folders.stopWatching()
	return fw.Close()
}

// startUp loads the folders, re-indexes after a change of the indexing
// rules and opens the file watcher.
func (ix *Indexer) startUp(ctx context.Context) (*fsnotify.Watcher, error) {
	if err := ix.loadFolders(); err != nil {
		return nil, fmt.Errorf("read registered folders: %w", err)
	}
	if err := ix.checkVersions(ctx); err != nil {
		return nil, err
	}
	if err := ix.checkModels(ctx); err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	return fw, nil
}

// Subscribe returns a channel of index events that is closed when ctx is
// done or Run returns. A subscriber that falls behind by more than a few
// hundred events loses the newest ones (see DroppedEvents); the indexer
// never waits for a subscriber.
func (ix *Indexer) Subscribe(ctx context.Context) <-chan memd.Event {
	return ix.events.subscribe(ctx)
}

// DroppedEvents is how many events slow subscribers have lost.
func (ix *Indexer) DroppedEvents() int64 { return ix.events.dropped.Load() }

// IndexedSinceStart is how many notes this indexer has written (new,
// changed or renamed).
func (ix *Indexer) IndexedSinceStart() int64 { return ix.indexed.Load() }

// Idle reports whether no work is pending: nothing queued, no change
// waiting out the debounce, no batch or reconcile under way, and, with
// models configured, no note waiting for its model stages. A change the
// watcher has not reported yet is not seen.
func (ix *Indexer) Idle() bool {
	if ix.busy.Load() > 0 || ix.debouncing() > 0 {
		return false
	}
	pending := 0
	if err := ix.db.View(func(tx *store.Tx) error {
		c := tx.Counts()
		pending = c.Pending
		if ix.stages.on() {
			pending += c.Enriching
		}
		return nil
	}); err != nil {
		return false
	}
	return pending == 0 && ix.busy.Load() == 0 && ix.debouncing() == 0
}

// debouncing is how many changed paths wait out the watcher's debounce.
func (ix *Indexer) debouncing() int64 {
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	if w == nil {
		return 0
	}
	return w.debouncing()
}

// WaitIdle returns nil once Idle is true, or ctx's error. Work queued
// before Run starts keeps it waiting until Run has done it.
func (ix *Indexer) WaitIdle(ctx context.Context) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !ix.Idle() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// committed tells the rest of memd what a batch's commit did.
func (ix *Indexer) committed(eff *txEffects, indexed int64) {
	ix.afterCommit(eff)
	ix.indexed.Add(indexed)
}

// enriched tells the rest of memd what an enrichment commit did.
func (ix *Indexer) enriched(eff *txEffects, evs []memd.Event, requeued bool) {
	ix.afterCommit(eff)
	ix.emit(evs...)
	if requeued {
		ix.queue.notify()
	}
}

// requestReconcile asks the reconcile loop to walk root soon ("" for all).
func (ix *Indexer) requestReconcile(root string) {
	select {
	case ix.reqs <- root:
	default:
		ix.log.Debug("reconcile request dropped; the periodic reconcile will catch up", "folder", root)
	}
}

func (ix *Indexer) emit(evs ...memd.Event) { ix.events.send(evs...) }

// emitError reports a failure to subscribers and the log.
func (ix *Indexer) emitError(msg string, err error, attrs ...any) {
	ix.log.Warn(msg, append(attrs, "err", err)...)
	ix.emit(memd.Event{Type: memd.EventError, Reason: fmt.Sprintf("%s: %v", msg, err), At: time.Now().UTC()})
}

// The Indexer is the watcher's sink: what the watcher sees becomes jobs,
// reconciles and folder states here.

func (ix *Indexer) changed(root string, paths []string) {
	paths = ix.recordBadNames(root, paths)
	ix.queue.changed(paths)
	if err := ix.queue.add(root, paths); err != nil {
		ix.emitError("queue changed files", err, "folder", root)
		if isTransientWrite(err) {
			ix.folders.markMissed(root)
		}
	}
}

func (ix *Indexer) ignoreFileChanged(root string) {
	ix.folders.reloadRules(root)
	ix.requestReconcile(root)
}

func (ix *Indexer) folderBack(root string) { ix.requestReconcile(root) }

func (ix *Indexer) overflowed() { ix.requestReconcile("") }

func (ix *Indexer) storedUnder(prefix string) []string {
	var paths []string
	err := ix.db.View(func(tx *store.Tx) error {
		return tx.ForEachNote(prefix, func(n *store.Note) error {
			paths = append(paths, n.Path)
			return nil
		})
	})
	if err != nil {
		ix.log.Warn("list notes of a removed directory", "dir", prefix, "err", err)
	}
	return paths
}

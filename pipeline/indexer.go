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
// paths as durable jobs and indexes them in group-committed batches.
//
// All methods are safe for concurrent use. Folder methods work before Run
// too (their jobs wait in the store's queue); watching and indexing happen
// only while Run runs. Run may be called once.
type Indexer struct {
	db  *store.DB
	cfg Config
	log *slog.Logger

	events  broadcaster
	indexed atomic.Int64
	wake    chan struct{} // capacity 1: jobs were queued
	started chan struct{} // closed when Run begins
	reqs    chan string   // folder roots to reconcile soon

	folderMu sync.Mutex // serializes AddFolder and RemoveFolder
	writeMu  sync.Mutex // a batch, from reading its jobs to its commit, against Forget, Reindex, RemoveFolder

	preparers []*preparer // owned by the worker goroutine

	busy       atomic.Int64 // batches and reconciles under way
	debouncing atomic.Int64 // changed paths waiting out the debounce

	// Model stages; fixed at NewIndexer.
	chunkOn     bool           // the chunk model runs
	chunkStatus string         // ChunkerStatus
	vectors     *vector.Writer // nil without an embedder
	noTemplate  atomic.Bool    // the generator has no chat template: plain prompts
	stats       stageCounters
	tally       chunkerTally

	mu      sync.Mutex
	ran     bool
	w       *watcher                  // non-nil while Run runs
	folders map[string]*folderRuntime // registered roots
	batch   bool                      // a batch is between reading its jobs and its commit
	redo    map[string]bool           // paths that changed while a batch was open
}

type folderRuntime struct {
	rules    *ignoreRules
	watching bool
	err      string
}

// NewIndexer returns an indexer over db. It does nothing until Run or a
// folder method is called.
func NewIndexer(db *store.DB, cfg Config) *Indexer {
	cfg = cfg.withDefaults()
	ix := &Indexer{
		db:      db,
		cfg:     cfg,
		log:     cfg.Logger.With("component", "pipeline"),
		wake:    make(chan struct{}, 1),
		started: make(chan struct{}),
		reqs:    make(chan string, 16),
		folders: map[string]*folderRuntime{},
	}
	ix.chunkOn, ix.chunkStatus = chunkReady(cfg)
	if e := cfg.Embedder; e != nil {
		ix.vectors = vector.NewWriter(db, e, vector.WriterConfig{
			Serving: cfg.Vectors, Logger: ix.log,
			OnEmbed: func(chunks, tokens int, took time.Duration) { ix.stats.embed.add(chunks, tokens, 0, took) },
			OnError: func(what string, err error) { ix.emitError(what, err) },
		})
	}
	if err := ix.loadFolders(); err != nil {
		ix.log.Warn("read registered folders", "err", err)
	}
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
	w := newWatcher(ix, fw)
	ix.mu.Lock()
	ix.w = w
	ix.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { w.run(ctx) })
	wg.Go(func() { ix.work(ctx) })
	wg.Go(func() { ix.reconcileLoop(ctx) })
	if ix.vectors != nil {
		wg.Go(func() { ix.vectors.Run(ctx) })
	}
	wg.Wait()

	ix.mu.Lock()
	ix.w = nil
	for _, f := range ix.folders {
		f.watching = false
	}
	ix.mu.Unlock()
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
// waiting out the debounce, no batch or reconcile under way. A change the
// watcher has not reported yet is not seen.
func (ix *Indexer) Idle() bool {
	if ix.busy.Load() > 0 || ix.debouncing.Load() > 0 {
		return false
	}
	pending := 0
	if err := ix.db.View(func(tx *store.Tx) error {
		pending = tx.Counts().Pending
		return nil
	}); err != nil {
		return false
	}
	return pending == 0 && ix.busy.Load() == 0 && ix.debouncing.Load() == 0
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

// notify wakes the worker: jobs were queued.
func (ix *Indexer) notify() {
	select {
	case ix.wake <- struct{}{}:
	default:
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

package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/internal/pause"
	"github.com/memd-dev/memd/store"
)

// batchWorker is the first phase of indexing: it drains the job queue in
// batches, preparing each job's outcome on Config.Workers goroutines (read,
// parse, heuristic chunks, terms) and committing a batch in one
// transaction, each note's write with its FinishJob.
type batchWorker struct {
	db      *store.DB
	cfg     Config
	log     *slog.Logger
	queue   *jobQueue
	folders *folderRegistry
	enrich  bool // notes are marked for the model stages
	// writes is the Indexer's: a batch, from reading its jobs to its
	// commit, against Forget, Reindex and RemoveFolder.
	writes *writeLock
	busy   *atomic.Int64 // the Indexer's count of work under way
	host   batchHost

	preparers []*preparer  // owned by run's goroutine
	released  atomic.Int64 // idle releases so far
	// burstBatches counts the batches read since the last idle release,
	// which sizes the next (batchLimit).
	burstBatches atomic.Int64
	// gcBefore and limitBefore are the collector's percent (GOGC) and the
	// memory limit (GOMEMLIMIT) the worker found when it raised the percent
	// for a burst of work (bulkGC), if gcRaised; under gcMu, as a batch read
	// ahead may raise it.
	gcMu        sync.Mutex
	gcRaised    bool
	gcBefore    int
	limitBefore int64
	// What the last batch's commit did beyond writing its outcomes: notes
	// it queued again (boilerplate's settle), and whether it fell back to
	// committing them one by one.
	requeued int
	oneByOne bool
	// ahead is the next batch, prepared while the last one committed,
	// under the write lock's generation aheadGen.
	ahead    batch
	aheadGen uint64
}

// writeLock serializes the writes to notes: a batch, from reading its jobs
// to its commit, against Forget, Reindex, RemoveFolder, an enrichment's
// commit and the chunker count. gen counts the holds that were not a
// batch's, so the batch worker can tell whether the batch it prepared
// during its last hold still stands.
type writeLock struct {
	mu  sync.Mutex
	gen uint64 // under mu
}

// Lock takes the lock for anything but a batch.
func (l *writeLock) Lock() {
	l.mu.Lock()
	l.gen++
}

func (l *writeLock) Unlock() { l.mu.Unlock() }

// lockBatch takes the lock for a batch and returns its generation.
func (l *writeLock) lockBatch() uint64 {
	l.mu.Lock()
	return l.gen
}

// batchHost is told what the worker did; the Indexer is one.
type batchHost interface {
	// committed gets a committed transaction's effects and how many notes
	// it wrote.
	committed(eff *txEffects, indexed int64)
	emit(evs ...memd.Event)
	emitError(msg string, err error, attrs ...any)
}

// run drains the job queue in batches until ctx is done.
func (bw *batchWorker) run(ctx context.Context) {
	defer bw.dropAhead()
	defer bw.restoreGC()
	failures := 0
	release := time.NewTimer(idleRelease)
	release.Stop()
	defer release.Stop()
	for ctx.Err() == nil {
		n, progressed, err := bw.runBatch(ctx)
		if n > 0 {
			release.Reset(idleRelease)
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			bw.host.emitError("index batch", err)
			pause.For(ctx, time.Duration(min(failures, 10))*time.Second)
		case n == 0:
			failures = 0
			select {
			case <-ctx.Done():
			case <-bw.queue.wake:
			case <-release.C:
				bw.release()
			case <-time.After(5 * time.Second): // a safety net; notify is the rule
			}
		case !progressed:
			pause.For(ctx, 200*time.Millisecond) // only retries: let the cause pass
		default:
			failures = 0
		}
	}
}

// idleRelease is how long the worker waits with nothing to do after a
// batch before it gives memory back: long enough that a burst of saves or
// the status calls at the end of a bulk add are over, so it happens once.
const idleRelease = time.Second

// release gives an idle daemon's memory back to the machine. A burst of
// indexing leaves tens of MB of heap behind: the preparers' analyzer word
// caches (MBs each; the next burst builds new ones), bbolt's page buffers
// in a sync.Pool (freed by the second collection, the first moves them to
// the pool's victim cache), the store's term ids (DB.ReleaseCaches) and
// the garbage of the last batch, which an idle daemon would otherwise keep
// until the runtime's two-minute collection.
func (bw *batchWorker) release() {
	bw.preparers = nil
	bw.db.ReleaseCaches()
	bw.restoreGC()
	bw.burstBatches.Store(0)
	runtime.GC()
	debug.FreeOSMemory()
	bw.released.Add(1)
}

// bulkGC is the most the collector's percent (GOGC) is raised to while
// the worker has work, from a burst's first batch to its idle release. A
// bulk add allocates tens of bytes for each byte of Markdown and keeps
// little of it; at Go's default of 100 the collector ran every few MB of a
// small vault's heap and took 15-20% of indexing's CPU. The idle release
// collects and gives the memory back.
const bulkGC = 400

// bulkHeapGrowth bounds what the raised percent lets the heap grow past
// its live part before a collection: a large live heap (a store of 100k
// notes, whose batches and dictionary are larger) gets a lower percent,
// so peak memory grows by at most about this much (BENCHMARKS.md, section
// "Bulk indexing's commit and GC").
const bulkHeapGrowth = 256 << 20

// bulkHeapFloor is what the raised percent lets a small live heap grow
// before a collection, up to bulkGCSmallHeap: at bulkGC a small vault's
// batch (the Dendron vault's one, its live heap a few MB when it is read)
// still met three collections, 8% of indexing it; at a floor of 64 MiB
// one, at 61 MB of heap with 26 MB live, 4% of it, which 128 MiB takes
// away without raising the vault's peak RSS (83 MB either way: its
// batch's heap ends near the first floor; BENCHMARKS.md, "Bulk indexing,
// round three"). The memory limit keeps a lower floor of its own
// (bulkLimitFloor), which the vault's batch stays under.
const bulkHeapFloor = 128 << 20

// bulkGCSmallHeap bounds the percent that bulkHeapFloor gives a small
// live heap: the percent holds until the next batch is read, while a
// batch's live heap grows to several times what it was.
const bulkGCSmallHeap = 3200

// bulkLimitFloor is the least the memory limit of a burst lets the heap
// grow past its live part: below bulkHeapFloor, so that a mid-sized live
// heap (the 50 MB a hundred recall clients keep during a reindex) grows by
// twice itself and no more; at bulkHeapFloor memd peaked at 212-229 MB
// under TestRecallUnderLoad, at this floor 146-149 MB.
const bulkLimitFloor = 64 << 20

// bulkLimitSlack is the least the memory limit of a burst
// (bulkMemoryLimit) allows past the heap's target, and a quarter of the
// target the most: the runtime's own memory (stacks, spans) and the
// heap's free spans, which grow with it; at 32 MiB alone the limit bound
// a 100k-note add's collections a few % sooner than its percent.
const bulkLimitSlack = 32 << 20

// bulkMemoryLimit is the memory limit (GOMEMLIMIT) for a burst's batch over
// a live heap of live bytes, where the collector's percent found was
// before: the heap may grow past its live part by twice the live part,
// at least bulkLimitFloor and at most bulkHeapGrowth, or as far as before
// lets it, whichever is more, and a slack past that (bulkLimitSlack). The raised
// percent alone let a mid-sized live heap grow four times over: the 50 MB
// that a hundred recall clients kept live during a reindex became a 250 MB
// target and 310-360 MB of RSS (TestRecallUnderLoad, 160-183 MB before the
// percent was raised).
func bulkMemoryLimit(live uint64, before int) int64 {
	growth := min(max(2*live, bulkLimitFloor), bulkHeapGrowth)
	target := max(live+live*uint64(before)/100, live+growth)
	return int64(target + max(bulkLimitSlack, target/4))
}

// bulkGCPercent is the collector's percent for a batch over a live heap of
// live bytes, where the percent found was before: bulkGC, more for a small
// heap (bulkHeapFloor), or what keeps the heap's growth to
// bulkHeapGrowth, never below before.
func bulkGCPercent(live uint64, before int) int {
	live = max(live, 1)
	most := min(max(bulkHeapFloor*100/live, bulkGC), bulkGCSmallHeap)
	p := bulkHeapGrowth * 100 / live
	return int(min(max(p, uint64(before)), most))
}

// raiseGC sets the collector's percent for the batch just read
// (bulkGCPercent) and a memory limit that bounds the heap's growth
// (bulkMemoryLimit), unless the collector is off
// (GOGC=off) or at bulkGC or above. A lower limit already set (GOMEMLIMIT)
// is kept.
func (bw *batchWorker) raiseGC() {
	bw.gcMu.Lock()
	defer bw.gcMu.Unlock()
	if !bw.gcRaised {
		before := debug.SetGCPercent(bulkGC)
		if before < 0 || before >= bulkGC {
			debug.SetGCPercent(before)
			return
		}
		bw.gcRaised, bw.gcBefore = true, before
		bw.limitBefore = debug.SetMemoryLimit(-1)
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		p := bulkGCPercent(live[0].Value.Uint64(), bw.gcBefore)
		debug.SetGCPercent(p)
		debug.SetMemoryLimit(min(bulkMemoryLimit(live[0].Value.Uint64(), bw.gcBefore), bw.limitBefore))
	}
}

// restoreGC puts back the collector's percent and memory limit raiseGC
// found.
func (bw *batchWorker) restoreGC() {
	bw.gcMu.Lock()
	defer bw.gcMu.Unlock()
	if bw.gcRaised {
		debug.SetGCPercent(bw.gcBefore)
		debug.SetMemoryLimit(bw.limitBefore)
		bw.gcRaised = false
	}
}

// runBatch commits a batch of up to BatchNotes jobs, prepared outside any
// write transaction (read, parsed and chunked on Config.Workers
// goroutines), all in one transaction, each job's note write with its
// FinishJob, so a crash leaves every job either done or still queued.
// Events go out after the commit. While the batch commits, the next one is
// read and prepared, so the two halves of indexing run on two cores; it is
// kept for the next call unless something else took the write lock in
// between. It reports how many jobs it read and whether any finished
// (rather than being retried).
func (bw *batchWorker) runBatch(ctx context.Context) (int, bool, error) {
	bw.busy.Add(1)
	defer bw.busy.Add(-1)
	gen := bw.writes.lockBatch()
	defer bw.writes.Unlock()

	b, err := bw.nextBatch(ctx, gen)
	if err != nil || b.read == 0 {
		return 0, false, err
	}
	if ctx.Err() != nil {
		bw.closeBatch(b.window, nil)
		return b.read, false, nil // jobs stay queued for the next start
	}
	pending := pendingOf(b.outs)
	next := make(chan batch, 1)
	go func() { next <- bw.readBatch(ctx, pending) }()
	bw.requeued, bw.oneByOne = 0, false
	evs, committed, err := bw.commitAll(b.outs)
	bw.closeBatch(b.window, b.outs[:committed])
	bw.host.emit(evs...)
	bw.ahead, bw.aheadGen = <-next, gen
	// The batch read ahead foresaw this one's boilerplate as prepared; if
	// its commit went otherwise (a note retried, committed one by one, or
	// notes queued again, which may be the ahead batch's own), it is read
	// again after the commit instead.
	if bw.requeued > 0 || committed < len(b.outs) || bw.oneByOne ||
		slices.ContainsFunc(b.outs, func(o outcome) bool { return o.retried }) {
		bw.dropAhead()
	}
	if err != nil {
		// The work loop backs off; the jobs not committed stay queued.
		return b.read, false, fmt.Errorf("store %d notes; they stay queued and are tried again: %w", len(b.outs)-committed, err)
	}
	progressed := slices.ContainsFunc(b.outs, func(o outcome) bool { return !o.retried })
	return b.read, progressed, nil
}

// batch is a batch of jobs read from the queue and their outcomes.
type batch struct {
	read   int // jobs read; outs holds a prefix of them, as the byte budget allows
	outs   []outcome
	window *batchWindow // nil when nothing was read
	err    error
}

// nextBatch is the batch prepared during the last hold of the write lock,
// if it is still good (nothing else took the lock since: gen), else one
// read and prepared now.
func (bw *batchWorker) nextBatch(ctx context.Context, gen uint64) (batch, error) {
	if bw.ahead.window != nil && bw.aheadGen == gen && bw.ahead.err == nil && ctx.Err() == nil {
		b := bw.ahead
		bw.ahead = batch{}
		return b, nil
	}
	bw.dropAhead()
	b := bw.readBatch(ctx, nil)
	return b, b.err
}

// dropAhead forgets the batch prepared ahead; its jobs stay queued.
func (bw *batchWorker) dropAhead() {
	if bw.ahead.window != nil {
		bw.queue.closeBatch(bw.ahead.window)
	}
	bw.ahead = batch{}
}

// pendingOf is what a batch being committed will write, as
// batchBoilerplate reads it (the kind, paths and blocks of each outcome),
// copied so that the next batch can be foreseen while the commit runs.
func pendingOf(outs []outcome) []outcome {
	pending := make([]outcome, len(outs))
	for i, o := range outs {
		pending[i] = outcome{job: o.job, kind: o.kind, from: o.from}
		if o.note != nil {
			pending[i].note = &store.Note{Path: o.note.Path, Folder: o.note.Folder, Blocks: o.note.Blocks}
		}
	}
	return pending
}

// readBatch reads up to BatchNotes queued jobs, leaving out those of the
// batch being committed (committing: what it will write, pendingOf), and
// prepares their outcomes, their boilerplate foreseen as it will be once
// both commit. Its window is open (and the batch's to close) when it read
// any job.
func (bw *batchWorker) readBatch(ctx context.Context, committing []outcome) batch {
	w := bw.queue.openBatch()
	skip := make(map[uint64]bool, len(committing))
	for _, o := range committing {
		skip[o.job.Seq] = true
	}
	var jobs []store.Job
	skips := map[string]store.Skip{}
	err := bw.db.View(func(tx *store.Tx) error {
		var err error
		if jobs, err = tx.JobsExcept(bw.batchLimit(), skip); err != nil {
			return err
		}
		for _, j := range jobs {
			if s, err := tx.Skip(j.Path); err == nil {
				skips[j.Path] = s
			}
		}
		return nil
	})
	if err != nil || len(jobs) == 0 {
		bw.queue.closeBatch(w)
		return batch{err: err}
	}
	bw.raiseGC()
	return batch{read: len(jobs), outs: bw.prepare(ctx, jobs, skips, committing), window: w}
}

// batchLimit is how many jobs the next batch reads at most: BatchNotes
// for a burst's first, twice the last batch's limit for each later one, up
// to BurstBatchNotes.
func (bw *batchWorker) batchLimit() int {
	k := min(bw.burstBatches.Add(1)-1, 16) // past any BurstBatchNotes, short of overflowing
	return int(min(int64(bw.cfg.BatchNotes)<<k, int64(bw.cfg.BurstBatchNotes)))
}

// commitAll commits outs in one transaction, or one by one when that fails
// for a cause of its own, and returns how many it committed (a prefix).
// A transient write failure (a full disk, an I/O error) is returned at
// once: retried later, the same jobs will succeed, so none is counted as
// failed or skipped for it.
func (bw *batchWorker) commitAll(outs []outcome) ([]memd.Event, int, error) {
	evs, err := bw.commit(outs, true)
	switch {
	case err == nil:
		return evs, len(outs), nil
	case isTransientWrite(err):
		return nil, 0, err
	}
	bw.log.Warn("batch commit failed; committing its jobs one by one", "jobs", len(outs), "err", err)
	bw.oneByOne = true
	return bw.commitEach(outs)
}

// closeBatch re-queues the batch's paths that changed while it was open.
func (bw *batchWorker) closeBatch(w *batchWindow, outs []outcome) {
	redo := bw.queue.closeBatch(w)
	byRoot := map[string][]string{}
	for _, o := range outs {
		if redo[o.job.Path] && !o.retried {
			byRoot[o.job.Folder] = append(byRoot[o.job.Folder], o.job.Path)
		}
	}
	for root, paths := range byRoot {
		if err := bw.queue.add(root, paths); err != nil {
			bw.host.emitError("queue files changed while indexed", err, "folder", root)
		}
	}
}

// prepare computes each job's outcome, Config.Workers at a time. The
// preparers, and the analyzer caches in them, live as long as the worker.
func (bw *batchWorker) prepare(ctx context.Context, jobs []store.Job, skips map[string]store.Skip, committing []outcome) []outcome {
	outs := make([]outcome, len(jobs))
	if bw.preparers == nil {
		bw.preparers = make([]*preparer, bw.cfg.Workers)
		for i := range bw.preparers {
			bw.preparers[i] = &preparer{w: bw}
		}
	}
	budget := batchBudget{n: len(jobs), limit: bw.cfg.BatchBytes}
	var wg sync.WaitGroup
	for _, p := range bw.preparers[:min(len(bw.preparers), len(jobs))] {
		p.skips = skips
		wg.Go(func() {
			defer p.dirs.close()
			work := func() {
				for ctx.Err() == nil {
					i, ok := budget.take()
					if !ok {
						return
					}
					outs[i] = p.prepare(jobs[i])
					budget.spend(outs[i].size)
				}
			}
			// One read transaction for the preparer's whole share, not one
			// per note: no note changes under it but by the batch committing
			// alongside, whose notes are not in this one.
			if err := bw.db.View(func(tx *store.Tx) error {
				p.tx = tx
				defer func() { p.tx = nil }()
				work()
				return nil
			}); err != nil {
				work() // each lookup tries its own transaction, and says why it fails
			}
		})
	}
	wg.Wait()
	outs = outs[:budget.taken()]
	if ctx.Err() != nil {
		return outs
	}
	if err := bw.db.View(func(tx *store.Tx) error {
		if len(committing) == 0 {
			return batchBoilerplate(tx, outs)
		}
		// The store does not hold the committing batch's notes yet: they
		// count as if it did (their own boilerplate is set already).
		both := append(slices.Clip(committing), outs...)
		if err := batchBoilerplate(tx, both); err != nil {
			return err
		}
		copy(outs, both[len(committing):])
		return nil
	}); err != nil {
		bw.log.Warn("read the folders' boilerplate; the batch is weighted without it and re-indexed when it commits", "err", err)
	}
	bw.finish(outs)
	return outs
}

// finish makes the chunks of outs' parsed notes, Config.Workers at a time.
func (bw *batchWorker) finish(outs []outcome) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, p := range bw.preparers[:min(len(bw.preparers), len(outs))] {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(outs); i = int(next.Add(1)) - 1 {
				p.finish(&outs[i])
			}
		})
	}
	wg.Wait()
}

// batchBudget hands out a batch's jobs in order until their files add up to
// more than limit bytes, so a batch of large files is not all held in
// memory; the jobs not taken stay queued for the next batch. The jobs taken
// are always a prefix, and at least the first.
type batchBudget struct {
	n     int
	limit int64
	next  atomic.Int64
	bytes atomic.Int64
}

// take returns the next job's index, or false when the jobs or the bytes
// are spent. The byte check comes before the index is drawn, so no job is
// drawn and then left.
func (b *batchBudget) take() (int, bool) {
	if b.bytes.Load() > b.limit {
		return 0, false
	}
	i := int(b.next.Add(1)) - 1
	return i, i < b.n
}

func (b *batchBudget) spend(n int64) { b.bytes.Add(n) }

// taken is how many jobs were handed out.
func (b *batchBudget) taken() int { return min(int(b.next.Load()), b.n) }

// commit writes every outcome in one transaction and returns the events to
// send. exact says outs are a whole batch as prepared (batchBoilerplate
// foresaw their boilerplate together).
func (bw *batchWorker) commit(outs []outcome, exact bool) ([]memd.Event, error) {
	order := make([]int, len(outs))
	for i := range order {
		order[i] = i
	}
	// Renames first: the old path's own job, later in the batch, must not
	// delete the note the rename moves.
	slices.SortStableFunc(order, func(a, b int) int {
		return boolRank(outs[a].kind != outMove) - boolRank(outs[b].kind != outMove)
	})
	var evs []memd.Event
	var indexed int64
	var eff *txEffects
	err := bw.db.Update(func(tx *store.Tx) error {
		evs, indexed, eff = evs[:0], 0, &txEffects{}
		folders := map[string]bool{}
		for _, i := range order {
			e, err := apply(tx, &outs[i], eff, folders)
			if err != nil {
				return err
			}
			evs = append(evs, e...)
			if outs[i].indexed {
				indexed++
			}
		}
		if err := eff.boiler.settle(tx, exact && !slices.ContainsFunc(outs, func(o outcome) bool { return o.retried })); err != nil {
			return err
		}
		c := tx.Counts()
		for i := range evs {
			evs[i].Pending, evs[i].Notes = c.Pending, c.Notes
		}
		evs = append(evs, memd.Event{Type: memd.EventProgress, Pending: c.Pending, Notes: c.Notes, At: time.Now().UTC()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	bw.requeued += eff.boiler.requeued
	bw.host.committed(eff, indexed)
	return evs, nil
}

// commitEach commits outcomes one transaction each, after a batch failed: a
// job whose own commit fails is retried later, then skipped. It stops at a
// transient write failure, returning how many it committed.
func (bw *batchWorker) commitEach(outs []outcome) ([]memd.Event, int, error) {
	var evs []memd.Event
	for i := range outs {
		e, err := bw.commit(outs[i:i+1], false)
		if err == nil {
			evs = append(evs, e...)
			continue
		}
		if isTransientWrite(err) {
			return evs, i, err
		}
		o := outcome{job: outs[i].job, kind: outRetry, reason: "could not store: " + err.Error()}
		e, err = bw.commit([]outcome{o}, false)
		if isTransientWrite(err) {
			return evs, i, err
		}
		if err != nil {
			bw.host.emitError("record failed job", err, "path", o.job.Path)
			continue
		}
		evs = append(evs, e...)
	}
	return evs, len(outs), nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

package vector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// Embedder is an embedding model: the pipeline embeds chunks with it and
// recall embeds queries. *inference.Embedder is one. Vectors are only
// comparable with vectors of the same model, which Info().Fingerprint
// names and the store keys them by.
type Embedder interface {
	Embed(ctx context.Context, texts []string, prio inference.Priority) ([]inference.Embedding, error)
	Info() inference.ModelInfo
	Dim() int
}

// DefaultSyncLoad is how many stored vectors NewServing loads before it
// returns; a larger set loads in the background (about 0.3 s per 100k
// vectors of 768 dimensions here).
const DefaultSyncLoad = 50_000

// ServingConfig wires a Serving. The zero value means no vector search.
type ServingConfig struct {
	// Embedder is the configured embedding model; nil means recall is BM25
	// alone.
	Embedder Embedder
	// OpenEmbedder loads the model file that made the vectors still
	// serving while Embedder's re-embed runs. Nil, or a file that is gone
	// or changed, means recall is BM25 alone until the re-embed is done.
	OpenEmbedder func(path string) (Embedder, error)
	// SyncLoad overrides DefaultSyncLoad; negative loads everything in the
	// background.
	SyncLoad int
	// Logger receives load problems; nil discards them.
	Logger *slog.Logger
}

// Serving keeps the in-memory vector index of one embedder in step with
// the store, and knows which embedder must embed queries against it. The
// pipeline's Writer calls Put and Remove after each commit, and Switch
// after a completed re-embed. All methods are safe for concurrent
// use. Its loading goroutines stop in Close.
//
// Serving rule: the index holds the vectors of one fingerprint and is
// searched only with a query embedder of that fingerprint. While a new
// embedder re-embeds, the previous vectors keep serving with the previous
// model, loaded again from the path recorded in the store; when that file
// is gone, recall is BM25 alone with a warning until Switch.
type Serving struct {
	db  *store.DB
	cfg ServingConfig
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	serving *Served      // nil: no vector search
	build   *vectorBuild // the index being loaded, nil when none
	reason  string       // why no vectors serve although an embedder is configured
	notice  string       // something to report in status while serving
	owned   []ownedEmbedder
}

// Served is an index and the embedder whose vectors it holds: what one
// recall searches. Query vectors must come from Embedder.
type Served struct {
	Fingerprint string
	Index       *Index
	Embedder    Embedder
	// inflight counts recalls using this index, so a retired previous
	// embedder closes only after they are done with it.
	inflight sync.WaitGroup

	floorMu  sync.Mutex // held while Floor calibrates
	floorSet bool
	floor    float32
}

// Release ends one recall's use of the index Acquire gave it.
func (s *Served) Release() { s.inflight.Done() }

// vectorBuild is an index being loaded from the store. Commits that land
// meanwhile are logged in ops and replayed over it before it serves, so
// the loaded snapshot and the live updates cannot race.
type vectorBuild struct {
	fp       string
	embedder Embedder
	ops      []vectorOp
	total    int
	loaded   atomic.Int64
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed when the build serves, fails or is superseded
}

type vectorOp struct {
	chunk  uint64
	vec    []float32
	remove bool
}

type ownedEmbedder struct {
	fp string
	e  Embedder
}

// NewServing decides which vectors serve and loads them: synchronously
// when there are at most SyncLoad of them, else in the background (recall
// is BM25 alone until then, with a warning). It never fails: a problem
// becomes the reason Stats reports.
func NewServing(db *store.DB, cfg ServingConfig) *Serving {
	ctx, cancel := context.WithCancel(context.Background())
	v := &Serving{db: db, cfg: cfg, log: cfg.Logger, ctx: ctx, cancel: cancel}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if cfg.SyncLoad == 0 {
		v.cfg.SyncLoad = DefaultSyncLoad
	}
	if cfg.Embedder == nil {
		return v
	}
	info := cfg.Embedder.Info()
	fp := info.Fingerprint
	var active, oldPath string
	err := db.Update(func(tx *store.Tx) error {
		active = tx.VectorState().Active
		if active != "" && active != fp {
			oldPath = tx.VectorModel(active)
		}
		if info.Path == "" {
			return nil
		}
		return tx.SetVectorModel(fp, info.Path)
	})
	if err != nil {
		v.reason = fmt.Sprintf("the vectors could not be read (%v); recall is BM25 alone", err)
		return v
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if active == "" || active == fp {
		v.startBuild(fp, cfg.Embedder, true)
		return v
	}
	old, err := v.openPrevious(active, oldPath)
	if err != nil {
		v.reason = fmt.Sprintf("the embedder changed and the notes are being re-embedded; the previous embedder cannot embed queries (%v), so recall is BM25 alone until re-embedding is done", err)
		v.log.Warn("previous embedder unavailable while re-embedding", "err", err)
		return v
	}
	v.notice = fmt.Sprintf("re-embedding with the new embedder; the previous one (%s) answers vector search until it is done", oldPath)
	v.startBuild(active, old, true)
	return v
}

// Serve is a Serving that serves idx, built in memory, with e: for
// benchmarks and evaluation harnesses that make their own vectors.
func Serve(db *store.DB, idx *Index, e Embedder) *Serving {
	v := NewServing(db, ServingConfig{})
	v.cfg.Embedder = e
	v.serving = &Served{Fingerprint: e.Info().Fingerprint, Index: idx, Embedder: e}
	return v
}

// openPrevious loads the model at path, the one that made the vectors of
// fingerprint fp.
func (v *Serving) openPrevious(fp, path string) (Embedder, error) {
	switch {
	case v.cfg.OpenEmbedder == nil:
		return nil, errors.New("no model loader")
	case path == "":
		return nil, errors.New("the store does not say which file it was")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("its file %s is gone", path)
	}
	e, err := v.cfg.OpenEmbedder(path)
	if err != nil {
		return nil, err
	}
	if got := e.Info().Fingerprint; got != fp {
		closeEmbedder(e)
		return nil, fmt.Errorf("its file %s has changed", path)
	}
	v.owned = append(v.owned, ownedEmbedder{fp: fp, e: e})
	return e, nil
}

// startBuild loads fp's vectors into a new index that then serves with e.
// Called with mu held. inline lets a small load finish before it returns.
func (v *Serving) startBuild(fp string, e Embedder, inline bool) {
	var total int
	_ = v.db.View(func(tx *store.Tx) error {
		total = tx.VectorCount(fp)
		return nil
	})
	if old := v.build; old != nil {
		old.cancel()
	}
	b := &vectorBuild{fp: fp, embedder: e, total: total, done: make(chan struct{})}
	b.ctx, b.cancel = context.WithCancel(v.ctx)
	v.build = b
	if inline && v.cfg.SyncLoad >= 0 && total <= v.cfg.SyncLoad {
		idx, err := v.load(b)
		v.finishBuild(b, idx, err)
		return
	}
	v.wg.Go(func() {
		idx, err := v.load(b)
		v.mu.Lock()
		defer v.mu.Unlock()
		v.finishBuild(b, idx, err)
	})
}

// load reads b's vectors from the store into a new index.
func (v *Serving) load(b *vectorBuild) (*Index, error) {
	idx := New(b.embedder.Dim())
	idx.Grow(b.total)
	err := v.db.View(func(tx *store.Tx) error {
		return tx.ForEachVector(b.fp, func(chunk uint64, q store.QuantizedVector) error {
			if err := b.ctx.Err(); err != nil {
				return err
			}
			b.loaded.Add(1)
			return idx.Add(chunk, q)
		})
	})
	return idx, err
}

// finishBuild replays what happened during the load and lets idx serve.
// Called with mu held.
func (v *Serving) finishBuild(b *vectorBuild, idx *Index, err error) {
	defer close(b.done)
	b.cancel()
	if v.build != b {
		return // superseded by a later Switch
	}
	v.build = nil
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			retired := v.serving
			v.serving = nil
			v.reason = fmt.Sprintf("loading the vectors failed (%v); recall is BM25 alone", err)
			v.log.Warn("load vectors", "fingerprint", b.fp, "err", err)
			v.releaseUnused(retired)
		}
		return
	}
	for _, op := range b.ops {
		if op.remove {
			idx.Remove(op.chunk)
		} else if err := idx.AddFloat(op.chunk, op.vec); err != nil {
			v.log.Warn("vector of another dimension", "chunk", op.chunk, "err", err)
		}
	}
	retired := v.serving
	v.serving = &Served{Fingerprint: b.fp, Index: idx, Embedder: b.embedder}
	v.reason = ""
	if b.embedder == v.cfg.Embedder {
		v.notice = ""
	}
	v.releaseUnused(retired)
}

// releaseUnused closes the previous embedders nothing serves with any more,
// once the recalls still using retired (the index that just stopped
// serving, or nil) are done. Called with mu held.
func (v *Serving) releaseUnused(retired *Served) {
	keep := v.owned[:0]
	var drop []Embedder
	for _, o := range v.owned {
		if (v.serving != nil && v.serving.Embedder == o.e) || (v.build != nil && v.build.embedder == o.e) {
			keep = append(keep, o)
			continue
		}
		drop = append(drop, o.e)
	}
	v.owned = keep
	if len(drop) == 0 {
		return
	}
	v.wg.Go(func() {
		if retired != nil {
			retired.inflight.Wait()
		}
		for _, e := range drop {
			closeEmbedder(e)
		}
	})
}

func closeEmbedder(e Embedder) {
	if c, ok := e.(io.Closer); ok {
		c.Close()
	}
}

// Put makes vec chunk's vector under embedder fingerprint fp, after the
// Writer committed it. Vectors of a fingerprint that is not serving (a
// re-embed in progress) stay in the store until Switch.
func (v *Serving) Put(fp string, chunk uint64, vec []float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.put(fp, chunk, vec)
}

func (v *Serving) put(fp string, chunk uint64, vec []float32) {
	if b := v.build; b != nil && b.fp == fp {
		b.ops = append(b.ops, vectorOp{chunk: chunk, vec: vec})
	}
	if s := v.serving; s != nil && s.Fingerprint == fp {
		if err := s.Index.AddFloat(chunk, vec); err != nil {
			v.log.Warn("vector of another dimension", "chunk", chunk, "err", err)
		}
	}
}

// Remove drops chunk's vector, after the pipeline committed its removal.
func (v *Serving) Remove(chunk uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.remove(chunk)
}

func (v *Serving) remove(chunk uint64) {
	if b := v.build; b != nil {
		b.ops = append(b.ops, vectorOp{chunk: chunk, remove: true})
	}
	if s := v.serving; s != nil {
		s.Index.Remove(chunk)
	}
}

// Switch makes fp's vectors the serving ones: the Writer calls it when a
// re-embed with the configured embedder is complete. The current index
// keeps serving until the new one is loaded, in the background.
func (v *Serving) Switch(fp string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.build != nil && v.build.fp == fp {
		return
	}
	if v.serving != nil && v.serving.Fingerprint == fp && v.build == nil {
		return
	}
	e := v.embedderFor(fp)
	if e == nil {
		if v.build != nil {
			v.build.cancel()
		}
		retired := v.serving
		v.serving, v.build = nil, nil
		v.reason = "the store's active vectors were made by a model that is not loaded; recall is BM25 alone (set the embedder that made them, or reindex)"
		v.releaseUnused(retired)
		return
	}
	v.startBuild(fp, e, false)
}

func (v *Serving) embedderFor(fp string) Embedder {
	if e := v.cfg.Embedder; e != nil && e.Info().Fingerprint == fp {
		return e
	}
	for _, o := range v.owned {
		if o.fp == fp {
			return o.e
		}
	}
	return nil
}

// Embedder is the configured embedding model, nil when there is none.
func (v *Serving) Embedder() Embedder {
	if v == nil {
		return nil
	}
	return v.cfg.Embedder
}

// Acquire is what one recall searches: the index and its embedder, or nil
// and a warning (empty when no embedder is configured). The caller
// releases a non-nil index when done.
func (v *Serving) Acquire() (*Served, string) {
	if v == nil {
		return nil, ""
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	sv, warn := v.searchable0()
	if sv != nil {
		sv.inflight.Add(1)
	}
	return sv, warn
}

// searchable is acquire without taking a use, for status and tests.
func (v *Serving) searchable() (*Served, string) {
	if v == nil {
		return nil, ""
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.searchable0()
}

func (v *Serving) searchable0() (*Served, string) {
	switch {
	case v.serving != nil:
		return v.serving, ""
	case v.build != nil:
		return nil, fmt.Sprintf("the vectors are loading into memory (%d of %d); recall is BM25 alone until they are in",
			v.build.loaded.Load(), v.build.total)
	}
	return nil, v.reason
}

// Stats is what Serving reports in status.
type Stats struct {
	Fingerprint string // of the serving vectors; "" when none serve
	Len         int    // vectors in memory
	Bytes       int64  // memory the index holds
	Stored      int    // vectors in the store under the configured embedder
	Loading     bool
	Warnings    []string
}

// Stats reports which vectors serve and how many.
func (v *Serving) Stats() Stats {
	var st Stats
	if v == nil {
		return st
	}
	v.mu.Lock()
	s, b, reason, notice := v.serving, v.build, v.reason, v.notice
	v.mu.Unlock()
	if s != nil {
		st.Fingerprint, st.Len, st.Bytes = s.Fingerprint, s.Index.Len(), s.Index.Bytes()
	}
	if b != nil {
		st.Loading = true
		if s == nil {
			st.Warnings = append(st.Warnings, fmt.Sprintf("loading %d vectors into memory (%d in)", b.total, b.loaded.Load()))
		}
	}
	for _, w := range []string{reason, notice} {
		if w != "" {
			st.Warnings = append(st.Warnings, w)
		}
	}
	if v.cfg.Embedder != nil {
		_ = v.db.View(func(tx *store.Tx) error {
			st.Stored = tx.VectorCount(v.cfg.Embedder.Info().Fingerprint)
			return nil
		})
	}
	return st
}

// Wait returns when no load is in progress or ctx ends (for tests and for
// callers that want the vectors before serving).
func (v *Serving) Wait(ctx context.Context) error {
	for {
		v.mu.Lock()
		b := v.build
		v.mu.Unlock()
		if b == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.done:
		}
	}
}

// Close stops loads in progress and closes the embedders Serving loaded
// itself (never Config.Embedder). It is idempotent.
func (v *Serving) Close() error {
	v.cancel()
	v.wg.Wait()
	v.mu.Lock()
	retired := v.serving
	v.serving, v.build = nil, nil
	v.releaseUnused(retired)
	v.mu.Unlock()
	v.wg.Wait()
	return nil
}

package vector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/internal/pause"
	"github.com/memd-dev/memd/store"
)

// embedBatch is the most chunks one Embed call carries; the embedder packs
// the calls of concurrent notes into shared decodes.
const embedBatch = 64

// reembedRound is how many chunks one re-embed transaction writes.
const reembedRound = 128

// WriterConfig wires a Writer; every field may be left zero.
type WriterConfig struct {
	// Serving hears of every vector written or removed, after the commit,
	// so its in-memory index stays in step; nil keeps none.
	Serving *Serving
	// Logger receives progress; nil discards it.
	Logger *slog.Logger
	// OnEmbed hears of each Embed call: chunks, prompt tokens, time taken
	// (the pipeline's stage counters).
	OnEmbed func(chunks, tokens int, took time.Duration)
	// OnError hears of a re-embed round that failed and will be retried.
	OnError func(what string, err error)
}

// Writer embeds chunks with one embedder and keeps their vectors: the
// pipeline embeds a note's chunks with EmbedChunks and stores them in the
// note's transaction, then tells Committed; Run gives every chunk still
// lacking a vector one and, when a new embedder has caught up, makes its
// vectors the active ones (store.Tx.SwitchVectors) and Serving's.
type Writer struct {
	db      *store.DB
	e       Embedder
	fp      string
	format  string
	cfg     WriterConfig
	log     *slog.Logger
	wake    chan struct{} // capacity 1: a note was written without vectors
	written atomic.Int64  // vectors written by re-embed passes
}

// NewWriter returns a Writer of e's vectors over db.
func NewWriter(db *store.DB, e Embedder, cfg WriterConfig) *Writer {
	w := &Writer{db: db, e: e, fp: e.Info().Fingerprint, format: FormatFor(e.Info()), cfg: cfg, log: cfg.Logger,
		wake: make(chan struct{}, 1)}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w
}

// Fingerprint is the embedder's: the key its vectors are stored under.
func (w *Writer) Fingerprint() string { return w.fp }

// Begin runs at start: an embedder other than the active one starts a
// re-embed (Run does it) while the active vectors keep serving; with no
// active vectors to keep, the embedder's vectors serve as they come.
func (w *Writer) Begin() error {
	return w.db.Update(func(tx *store.Tx) error {
		active := tx.VectorState().Active
		if active == "" || active == w.fp || tx.VectorCount(active) == 0 {
			return tx.SetVectorState(store.VectorState{Active: w.fp})
		}
		w.log.Info("embedder changed; re-embedding every chunk while the old vectors serve", "from", active, "to", w.fp)
		return tx.SetVectorState(store.VectorState{Active: active, Next: w.fp})
	})
}

// EmbedChunks embeds chunks in calls of up to embedBatch and returns one
// vector per chunk, in order.
func (w *Writer) EmbedChunks(ctx context.Context, chunks []store.NewChunk) ([][]float32, error) {
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = DocumentText(w.format, &chunks[i].Chunk)
	}
	return w.embed(ctx, texts)
}

func (w *Writer) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += embedBatch {
		part := texts[lo:min(lo+embedBatch, len(texts))]
		t0 := time.Now()
		embs, err := w.e.Embed(ctx, part, inference.Background)
		if err != nil {
			return nil, fmt.Errorf("embed %d chunks: %w", len(part), err)
		}
		if len(embs) != len(part) {
			return nil, fmt.Errorf("embed %d chunks: the embedder returned %d vectors", len(part), len(embs))
		}
		tokens := 0
		for _, e := range embs {
			if len(e.Vector) != w.e.Dim() {
				return nil, fmt.Errorf("embed: a vector of %d values from an embedder of dimension %d", len(e.Vector), w.e.Dim())
			}
			tokens += e.Tokens
			out = append(out, e.Vector)
		}
		if w.cfg.OnEmbed != nil {
			w.cfg.OnEmbed(len(part), tokens, time.Since(t0))
		}
	}
	return out, nil
}

// Put is one vector a transaction wrote, for Committed.
type Put struct {
	Fingerprint string
	Chunk       uint64
	Vector      []float32
}

// Committed tells Serving what a committed transaction did: the chunks it
// removed (with their vectors) and the vectors it wrote. unembedded says a
// note was written without vectors, which Run then picks up.
func (w *Writer) Committed(removed []uint64, puts []Put, unembedded bool) {
	if unembedded {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	s := w.cfg.Serving
	if s == nil {
		return
	}
	for _, id := range removed {
		s.Remove(id)
	}
	for _, p := range puts {
		s.Put(p.Fingerprint, p.Chunk, p.Vector)
	}
}

// Run gives every chunk lacking a vector under the embedder's fingerprint
// one, reembedRound chunks a transaction, and then, when a re-embed was
// under way, switches to the new vectors. It then waits for notes written
// without vectors (an embed that failed) until ctx ends.
func (w *Writer) Run(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		missing, err := w.pass(ctx)
		if err == nil && missing == 0 {
			err = w.switchVectors()
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			if w.cfg.OnError != nil {
				w.cfg.OnError("re-embed chunks", err)
			}
			pause.For(ctx, time.Duration(min(failures, 30))*time.Second)
			continue
		case missing > 0:
			continue // a pass writes what it found; check again
		}
		failures = 0
		select {
		case <-ctx.Done():
		case <-w.wake:
		}
	}
}

// pass embeds and writes the chunks (up to the highest id at its start)
// that lack a vector under the embedder's fingerprint and returns how many
// it wrote.
func (w *Writer) pass(ctx context.Context) (int, error) {
	have, maxID, err := w.missing()
	if err != nil {
		return 0, err
	}
	written := 0
	for next := uint64(1); next <= maxID && ctx.Err() == nil; {
		ids, texts, err := w.round(&next, maxID, have)
		if err != nil {
			return written, err
		}
		if len(ids) == 0 {
			continue
		}
		n, err := w.write(ctx, ids, texts)
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, ctx.Err()
}

// missing returns the chunk ids that have a vector, sorted, and the highest
// chunk id; maxID is 0 when every chunk has one.
func (w *Writer) missing() (have []uint64, maxID uint64, err error) {
	err = w.db.View(func(tx *store.Tx) error {
		if tx.VectorCount(w.fp) >= tx.Counts().Chunks {
			return nil
		}
		maxID = tx.MaxChunkID()
		return tx.ForEachVector(w.fp, func(id uint64, _ store.QuantizedVector) error {
			have = append(have, id)
			return nil
		})
	})
	return have, maxID, err
}

// round reads the next reembedRound chunks from *next on that lack a
// vector, in their document text, and moves *next past them.
func (w *Writer) round(next *uint64, maxID uint64, have []uint64) (ids []uint64, texts []string, err error) {
	err = w.db.View(func(tx *store.Tx) error {
		for ; *next <= maxID && len(ids) < reembedRound; *next++ {
			if _, ok := slices.BinarySearch(have, *next); ok {
				continue
			}
			c, err := tx.Chunk(*next)
			if err != nil {
				continue // deleted
			}
			if tx.Enriching(c.Path) {
				continue // the pipeline's enricher embeds the chunks that replace it
			}
			ids = append(ids, *next)
			texts = append(texts, DocumentText(w.format, c))
		}
		return nil
	})
	return ids, texts, err
}

// write embeds texts and stores them as ids' vectors in one transaction,
// skipping chunks deleted meanwhile, and returns how many it wrote.
func (w *Writer) write(ctx context.Context, ids []uint64, texts []string) (int, error) {
	vecs, err := w.embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	var puts []Put
	err = w.db.Update(func(tx *store.Tx) error {
		puts = puts[:0]
		for i, id := range ids {
			if _, err := tx.Chunk(id); err != nil {
				continue // deleted meanwhile
			}
			if err := tx.PutVector(w.fp, id, vecs[i]); err != nil {
				return err
			}
			puts = append(puts, Put{w.fp, id, vecs[i]})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	w.Committed(nil, puts, false)
	w.written.Add(int64(len(puts)))
	return len(puts), nil
}

// switchVectors makes the embedder's fingerprint active when a re-embed
// was under way (store.Tx.SwitchVectors), then tells Serving.
func (w *Writer) switchVectors() error {
	var switched bool
	err := w.db.Update(func(tx *store.Tx) error {
		var err error
		switched, err = tx.SwitchVectors(w.fp)
		return err
	})
	if err != nil {
		return fmt.Errorf("switch to the new embedder's vectors: %w", err)
	}
	if switched {
		w.log.Info("re-embed done; the new embedder's vectors serve", "fingerprint", w.fp, "vectors", strconv.FormatInt(w.written.Load(), 10))
		if w.cfg.Serving != nil {
			w.cfg.Serving.Switch(w.fp)
		}
	}
	return nil
}

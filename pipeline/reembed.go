package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/store"
)

// Meta keys of the model stages, in the store's meta bucket.
const (
	// MetaChunker holds the fingerprint of the chunker and summarizer the
	// stored notes were made with (see chunkerFingerprint); a different
	// one at start re-indexes every note.
	MetaChunker = "chunker.fingerprint"
	// MetaVectorsActive holds the embedder fingerprint whose vectors are
	// complete and serve recall. It changes only when a new embedder has
	// a vector for every chunk; the old vectors are dropped then.
	MetaVectorsActive = "vectors.active"
	// MetaVectorsNext holds the embedder fingerprint being caught up
	// while MetaVectorsActive still serves, or is empty.
	MetaVectorsNext = "vectors.next"
)

// reembedRound is how many chunks one re-embed transaction writes.
const reembedRound = 128

// chunkerFingerprint names what made the stored chunks and summaries: the
// generator file, the chunk adapter's file (or "none") and the prompt
// version. "" when there is no generator.
func (ix *Indexer) chunkerFingerprint() string {
	g := ix.cfg.Generator
	if g == nil {
		return ""
	}
	adapter := "none"
	if ix.stages.chunkOn {
		adapter = ix.cfg.ChunkAdapter
		if af, ok := g.(adapterFiles); ok {
			if path := af.Config().Adapters[ix.cfg.ChunkAdapter]; path != "" {
				if fp, err := gguf.Fingerprint(path); err == nil {
					adapter += ":" + fp
				} else {
					adapter += ":" + path
				}
			}
		}
	}
	return fmt.Sprintf("generator=%s;adapter=%s;prompt=%d", g.Info().Fingerprint, adapter, chunkPromptVersion)
}

// checkModels runs at start: a generator or adapter other than the one the
// stored notes were made with re-indexes every note; an embedder other
// than the active one starts a re-embed (see reembedLoop). Without a
// generator nothing is re-chunked: notes keep what they have, and a
// generator that comes back with the same files redoes nothing.
func (ix *Indexer) checkModels(ctx context.Context) error {
	if want := ix.chunkerFingerprint(); want != "" {
		var got string
		var notes int
		if err := ix.db.View(func(tx *store.Tx) error {
			got, notes = string(tx.Meta(MetaChunker)), tx.Counts().Notes
			return nil
		}); err != nil {
			return err
		}
		if got != want {
			if notes > 0 {
				ix.log.Info("chunk model changed; re-chunking every note", "from", got, "to", want)
				if _, err := ix.Reindex(ctx, ""); err != nil {
					return fmt.Errorf("re-chunk for a new chunk model: %w", err)
				}
			}
			if err := ix.db.Update(func(tx *store.Tx) error { return tx.SetMeta(MetaChunker, []byte(want)) }); err != nil {
				return err
			}
		}
	}
	if ix.cfg.Embedder == nil {
		return nil
	}
	fp := ix.stages.embedFP
	return ix.db.Update(func(tx *store.Tx) error {
		active := string(tx.Meta(MetaVectorsActive))
		if active == "" || active == fp || tx.VectorCount(active) == 0 {
			// Nothing else to keep serving: the new vectors serve as
			// they come.
			if err := tx.SetMeta(MetaVectorsNext, nil); err != nil {
				return err
			}
			return tx.SetMeta(MetaVectorsActive, []byte(fp))
		}
		ix.log.Info("embedder changed; re-embedding every chunk while the old vectors serve", "from", active, "to", fp)
		return tx.SetMeta(MetaVectorsNext, []byte(fp))
	})
}

// reembedLoop gives every chunk lacking a vector under the embedder's
// fingerprint one, reembedRound chunks a transaction, and then, when a
// re-embed was under way, makes that fingerprint active, drops the other
// vectors and tells the sink. It then waits for notes written without
// vectors (an embed that failed) until ctx ends.
func (ix *Indexer) reembedLoop(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		missing, err := ix.reembedPass(ctx)
		if err == nil && missing == 0 {
			err = ix.switchVectors()
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			ix.emitError("re-embed chunks", err)
			sleep(ctx, time.Duration(min(failures, 30))*time.Second)
			continue
		case missing > 0:
			continue // a pass writes what it found; check again
		}
		failures = 0
		select {
		case <-ctx.Done():
		case <-ix.reembedWake:
		}
	}
}

// reembedPass embeds and writes the chunks (up to the highest id at its
// start) that lack a vector under the embedder's fingerprint and returns
// how many it wrote.
func (ix *Indexer) reembedPass(ctx context.Context) (int, error) {
	fp := ix.stages.embedFP
	var have []uint64
	var maxID uint64
	if err := ix.db.View(func(tx *store.Tx) error {
		if tx.VectorCount(fp) >= tx.Counts().Chunks {
			return nil // every chunk has one (maxID stays 0)
		}
		maxID = tx.MaxChunkID()
		return tx.ForEachVector(fp, func(id uint64, _ store.QuantizedVector) error {
			have = append(have, id)
			return nil
		})
	}); err != nil {
		return 0, err
	}
	written := 0
	for next := uint64(1); next <= maxID && ctx.Err() == nil; {
		var ids []uint64
		var texts []string
		if err := ix.db.View(func(tx *store.Tx) error {
			for ; next <= maxID && len(ids) < reembedRound; next++ {
				if _, ok := slices.BinarySearch(have, next); ok {
					continue
				}
				c, err := tx.Chunk(next)
				if err != nil {
					continue // deleted
				}
				if tx.Enriching(c.Path) {
					continue // the enricher embeds the chunks that replace it
				}
				ids = append(ids, next)
				texts = append(texts, documentText(ix.stages.embedFormat, c))
			}
			return nil
		}); err != nil {
			return written, err
		}
		if len(ids) == 0 {
			continue
		}
		vecs, err := ix.stages.embedTexts(ctx, texts)
		if err != nil {
			return written, err
		}
		var eff *txEffects
		err = ix.db.Update(func(tx *store.Tx) error {
			eff = &txEffects{}
			for i, id := range ids {
				if _, err := tx.Chunk(id); err != nil {
					continue // deleted meanwhile
				}
				if err := tx.PutVector(fp, id, vecs[i]); err != nil {
					return err
				}
				eff.puts = append(eff.puts, vectorPut{fp, id, vecs[i]})
			}
			return nil
		})
		if err != nil {
			return written, err
		}
		ix.afterCommit(eff)
		written += len(eff.puts)
		ix.reembedded.Add(int64(len(eff.puts)))
	}
	return written, ctx.Err()
}

// switchVectors makes the embedder's fingerprint active when a re-embed
// was under way: in one transaction it records it, clears MetaVectorsNext
// and drops every other fingerprint's vectors; then it tells the sink.
func (ix *Indexer) switchVectors() error {
	fp := ix.stages.embedFP
	switched := false
	err := ix.db.Update(func(tx *store.Tx) error {
		switched = false
		if string(tx.Meta(MetaVectorsActive)) == fp {
			return nil
		}
		for _, other := range tx.VectorFingerprints() {
			if other != fp {
				if err := tx.DropVectors(other); err != nil {
					return err
				}
			}
		}
		if err := tx.SetMeta(MetaVectorsNext, nil); err != nil {
			return err
		}
		switched = true
		return tx.SetMeta(MetaVectorsActive, []byte(fp))
	})
	if err != nil {
		return fmt.Errorf("switch to the new embedder's vectors: %w", err)
	}
	if switched {
		ix.log.Info("re-embed done; the new embedder's vectors serve", "fingerprint", fp, "vectors", strconv.FormatInt(ix.reembedded.Load(), 10))
		if ix.cfg.Vectors != nil {
			ix.cfg.Vectors.Switch(fp)
		}
	}
	return nil
}

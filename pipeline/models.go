package pipeline

import (
	"context"
	"fmt"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/store"
)

// MetaChunker, in the store's meta bucket, holds the fingerprint of the
// chunker and summarizer the stored notes were made with (see
// chunkerFingerprint); a different one at start re-indexes every note.
const MetaChunker = "chunker.fingerprint"

// Completer is the generator the chunk and summarize stages use;
// *inference.Generator is one. Info().Adapters lists the adapters it serves.
type Completer interface {
	Complete(ctx context.Context, req inference.CompletionRequest) (inference.Completion, error)
	Info() inference.ModelInfo
}

// adapterFiles is what *inference.Generator offers beyond Completer: the
// adapter files it loaded, so the chunker fingerprint changes with them.
type adapterFiles interface {
	Config() inference.GeneratorConfig
}

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
// than the active one starts a re-embed (vector.Writer.Begin). Without a
// generator nothing is re-chunked: notes keep what they have, and a
// generator that comes back with the same files redoes nothing.
func (ix *Indexer) checkModels(ctx context.Context) error {
	if err := ix.checkChunker(ctx); err != nil {
		return err
	}
	if ix.vectors == nil {
		return nil
	}
	return ix.vectors.Begin()
}

// checkChunker re-chunks every note when the chunk model changed.
func (ix *Indexer) checkChunker(ctx context.Context) error {
	want := ix.chunkerFingerprint()
	if want == "" {
		return nil
	}
	var got string
	var notes int
	if err := ix.db.View(func(tx *store.Tx) error {
		got, notes = string(tx.Meta(MetaChunker)), tx.Counts().Notes
		return nil
	}); err != nil {
		return err
	}
	if got == want {
		return nil
	}
	if notes > 0 {
		ix.log.Info("chunk model changed; re-chunking every note", "from", got, "to", want)
		if _, err := ix.Reindex(ctx, ""); err != nil {
			return fmt.Errorf("re-chunk for a new chunk model: %w", err)
		}
	}
	return ix.db.Update(func(tx *store.Tx) error { return tx.SetMeta(MetaChunker, []byte(want)) })
}

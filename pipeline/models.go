package pipeline

import (
	"context"

	"github.com/memd-dev/memd/inference"
)

// Completer is the generator the chunk and summarize stages use;
// *inference.Generator is one. Info().Adapters lists the adapters it serves.
type Completer interface {
	Complete(ctx context.Context, req inference.CompletionRequest) (inference.Completion, error)
	Info() inference.ModelInfo
}

// Embedder is the embedding model of the embed stage; *inference.Embedder
// is one. Info().Fingerprint keys the vectors it makes.
type Embedder interface {
	Embed(ctx context.Context, texts []string, prio inference.Priority) ([]inference.Embedding, error)
	Dim() int
	Info() inference.ModelInfo
}

// VectorSink keeps an in-memory copy of the stored vectors in step with the
// store. The indexer calls it after each commit, from one goroutine at a
// time, never inside a transaction; it must not block for long.
type VectorSink interface {
	// Put is a chunk's new vector under embedder fingerprint fp. During a
	// re-embed fp is the new embedder's, not yet the active one: keep
	// serving the active vectors and hold these aside until Switch.
	Put(fp string, chunk uint64, v []float32)
	// Remove says the chunk is gone: drop its vector under every
	// fingerprint.
	Remove(chunk uint64)
	// Switch says every chunk now has a vector under fp, fp is recorded
	// as the active fingerprint (meta "vectors.active") and the vectors of
	// every other fingerprint have been dropped from the store.
	Switch(fp string)
}

// adapterFiles is what *inference.Generator offers beyond Completer: the
// adapter files it loaded, so the chunker fingerprint changes with them.
type adapterFiles interface {
	Config() inference.GeneratorConfig
}

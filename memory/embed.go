package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memd-dev/memd/inference"
)

// Embedding limits: one call is a person's or an agent's batch, not an
// index build.
const (
	MaxEmbedInputs = 256
	maxEmbedBytes  = 1 << 20
)

// EmbedResult holds one vector per input, in order.
type EmbedResult struct {
	Model     string      `json:"model"`
	Vectors   [][]float32 `json:"vectors"`
	Tokens    int         `json:"tokens"`    // tokens embedded over all inputs
	Truncated int         `json:"truncated"` // tokens cut from inputs longer than the model takes
}

// errNoEmbedder is what Embed answers when the daemon has no embedding
// model.
var errNoEmbedder = fmt.Errorf("%w: embeddings need an embedding model and none is loaded; "+
	"start memd with --embedder PATH (a GGUF embedding model), or run `memctl model set embedder PATH`", ErrUnavailable)

// Embed returns the daemon's embedding of each text as it is, without the
// query or document prompts recall adds, at interactive priority.
func (s *Service) Embed(ctx context.Context, texts []string) (EmbedResult, error) {
	e := s.vectors.Embedder()
	if e == nil {
		return EmbedResult{}, errNoEmbedder
	}
	if len(texts) == 0 || len(texts) > MaxEmbedInputs {
		return EmbedResult{}, fmt.Errorf("%w: send 1 to %d texts to embed, not %d", ErrBadRequest, MaxEmbedInputs, len(texts))
	}
	total := 0
	for i, t := range texts {
		if t == "" {
			return EmbedResult{}, fmt.Errorf("%w: input %d is empty; every text must have something to embed", ErrBadRequest, i)
		}
		total += len(t)
	}
	if total > maxEmbedBytes {
		return EmbedResult{}, fmt.Errorf("%w: the texts are %d bytes together, over the %d-byte limit; send fewer at a time", ErrBadRequest, total, maxEmbedBytes)
	}
	out, err := e.Embed(ctx, texts, inference.Interactive)
	if err != nil {
		if errors.Is(err, inference.ErrClosed) {
			return EmbedResult{}, fmt.Errorf("%w: the embedder is shutting down; try again once memd is back", ErrUnavailable)
		}
		return EmbedResult{}, fmt.Errorf("embed: %w", err)
	}
	res := EmbedResult{Model: e.Info().DisplayName(), Vectors: make([][]float32, len(out))}
	for i, v := range out {
		res.Vectors[i] = v.Vector
		res.Tokens += v.Tokens
		res.Truncated += v.Truncated
	}
	return res, nil
}

// Model is one model the daemon answers with, as /v1/models lists it.
type Model struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"` // ModelChat, "generator" or "embedder"
	Path    string    `json:"path,omitempty"`
	Created time.Time `json:"created"`
}

// ModelChat is the id of chat with memory: the generator answering from
// recalled notes. Asking for any other model is a plain chat.
const ModelChat = "memd"

// Models lists what the daemon can answer with: "memd" (chat with memory)
// and the generator when one is loaded, and the embedder.
func (s *Service) Models(context.Context) ([]Model, error) {
	out := []Model{}
	if s.gen != nil {
		info := s.gen.Info()
		out = append(out, Model{ID: ModelChat, Role: ModelChat, Path: info.Path, Created: s.started},
			Model{ID: s.GeneratorName(), Role: "generator", Path: info.Path, Created: s.started})
	}
	if e := s.vectors.Embedder(); e != nil {
		info := e.Info()
		out = append(out, Model{ID: info.DisplayName(), Role: "embedder", Path: info.Path, Created: s.started})
	}
	return out, nil
}

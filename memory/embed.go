package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
)

// Embedding limits: one call is a person's or an agent's batch, not an
// index build.
const (
	MaxEmbedInputs = 256
	maxEmbedBytes  = 1 << 20
)

// errNoEmbedder is what Embed answers when the daemon has no embedding
// model.
var errNoEmbedder error = classified{memd.ErrUnavailable, errors.New("embeddings need an embedding model and none is loaded; " +
	"start memd with --embedder PATH (a GGUF embedding model), or run `memctl model set embedder PATH`")}

// Embed returns the daemon's embedding of each text as it is, without the
// query or document prompts recall adds, at interactive priority.
func (s *Service) Embed(ctx context.Context, texts []string) (memd.EmbedResult, error) {
	e := s.vectors.Embedder()
	if e == nil {
		return memd.EmbedResult{}, errNoEmbedder
	}
	if len(texts) == 0 || len(texts) > MaxEmbedInputs {
		return memd.EmbedResult{}, fmt.Errorf("%w: send 1 to %d texts to embed, not %d", memd.ErrBadRequest, MaxEmbedInputs, len(texts))
	}
	total := 0
	for i, t := range texts {
		if t == "" {
			return memd.EmbedResult{}, fmt.Errorf("%w: input %d is empty; every text must have something to embed", memd.ErrBadRequest, i)
		}
		total += len(t)
	}
	if total > maxEmbedBytes {
		return memd.EmbedResult{}, fmt.Errorf("%w: the texts are %d bytes together, over the %d-byte limit; send fewer at a time", memd.ErrBadRequest, total, maxEmbedBytes)
	}
	out, err := e.Embed(ctx, texts, inference.Interactive)
	if err != nil {
		if errors.Is(err, inference.ErrClosed) {
			return memd.EmbedResult{}, fmt.Errorf("%w: the embedder is shutting down; try again once memd is back", memd.ErrUnavailable)
		}
		return memd.EmbedResult{}, fmt.Errorf("embed: %w", err)
	}
	res := memd.EmbedResult{Model: e.Info().DisplayName(), Vectors: make([][]float32, len(out))}
	for i, v := range out {
		res.Vectors[i] = v.Vector
		res.Tokens += v.Tokens
		res.Truncated += v.Truncated
	}
	return res, nil
}

// Models lists what the daemon can answer with: "memd" (chat with memory)
// and the generator when one is loaded, and the embedder.
func (s *Service) Models(context.Context) ([]memd.Model, error) {
	out := []memd.Model{}
	if s.gen != nil {
		info := s.gen.Info()
		out = append(out, memd.Model{ID: memd.ModelChat, Role: memd.ModelChat, Path: info.Path, Created: s.started},
			memd.Model{ID: s.GeneratorName(), Role: "generator", Path: info.Path, Created: s.started})
	}
	if e := s.vectors.Embedder(); e != nil {
		info := e.Info()
		out = append(out, memd.Model{ID: info.DisplayName(), Role: "embedder", Path: info.Path, Created: s.started})
	}
	return out, nil
}

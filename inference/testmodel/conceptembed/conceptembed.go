// Package conceptembed is a fake embedding model for tests that need
// vectors whose nearness is known in advance: each dimension is a concept,
// and a text's vector counts the words of each concept it holds, so
// synonyms that share no term are near each other. It serves the tests of
// vector and memory alike; tests of real models use testmodel's GGUFs.
package conceptembed

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/memd-dev/memd/inference"
)

// Concepts maps each word the fake knows to its dimension.
var Concepts = map[string]int{
	"car": 0, "automobile": 0, "vehicle": 0, "sedan": 0,
	"tomato": 1, "tomatoes": 1, "vegetable": 1, "garden": 1,
	"report": 2, "quarterly": 2, "deadline": 2,
	"beijing": 3, "北京": 3,
}

// Embedder is the fake model. Tests may change its fields before use.
type Embedder struct {
	Fingerprint string
	Path        string
	Concepts    map[string]int
	Dims        int

	mu      sync.Mutex
	err     error
	queries []string
	closed  bool
}

// New is an 8-dimensional Embedder over Concepts, at a made-up model path.
func New(fingerprint string) *Embedder {
	return &Embedder{Fingerprint: fingerprint, Path: "/models/" + fingerprint + ".gguf", Concepts: Concepts, Dims: 8}
}

// Vector is the vector Embed gives text.
func (e *Embedder) Vector(text string) []float32 {
	v := make([]float32, e.Dims)
	v[e.Dims-1] = 0.05 // so no text is the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == '.' || r == ',' || r == ':' || r == '|' || r == '?'
	}) {
		if d, ok := e.Concepts[w]; ok {
			v[d]++
		}
	}
	return v
}

// Embed records the texts (see Queries) and returns their vectors, or the
// error set by Fail.
func (e *Embedder) Embed(_ context.Context, texts []string, _ inference.Priority) ([]inference.Embedding, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return nil, e.err
	}
	if e.closed {
		return nil, inference.ErrClosed
	}
	out := make([]inference.Embedding, len(texts))
	for i, t := range texts {
		e.queries = append(e.queries, t)
		out[i] = inference.Embedding{Vector: e.Vector(t)}
	}
	return out, nil
}

func (e *Embedder) Info() inference.ModelInfo {
	return inference.ModelInfo{Path: e.Path, Fingerprint: e.Fingerprint, Architecture: "llama"}
}

func (e *Embedder) Dim() int { return e.Dims }

func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

// Closed says whether Close was called.
func (e *Embedder) Closed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// Fail makes Embed return err from now on; nil heals it.
func (e *Embedder) Fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

// Queries lists the texts embedded so far, in order.
func (e *Embedder) Queries() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.queries)
}

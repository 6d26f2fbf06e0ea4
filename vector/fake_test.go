package vector

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// conceptEmbedder is a fake embedding model: each dimension is a concept,
// and a text's vector counts the words of each concept it holds.
type conceptEmbedder struct {
	fp       string
	path     string
	concepts map[string]int
	dim      int

	mu     sync.Mutex
	closed bool
}

var concepts = map[string]int{
	"car": 0, "automobile": 0, "vehicle": 0, "sedan": 0,
	"tomato": 1, "tomatoes": 1, "vegetable": 1, "garden": 1,
	"report": 2, "quarterly": 2, "deadline": 2,
}

func newConceptEmbedder(fp string) *conceptEmbedder {
	return &conceptEmbedder{fp: fp, path: "/models/" + fp + ".gguf", concepts: concepts, dim: 8}
}

func (e *conceptEmbedder) vector(text string) []float32 {
	v := make([]float32, e.dim)
	v[e.dim-1] = 0.05 // so no text is the zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == '.' || r == ',' || r == ':' || r == '|' || r == '?'
	}) {
		if d, ok := e.concepts[w]; ok {
			v[d]++
		}
	}
	return v
}

func (e *conceptEmbedder) Embed(_ context.Context, texts []string, _ inference.Priority) ([]inference.Embedding, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, inference.ErrClosed
	}
	out := make([]inference.Embedding, len(texts))
	for i, t := range texts {
		out[i] = inference.Embedding{Vector: e.vector(t)}
	}
	return out, nil
}

func (e *conceptEmbedder) Info() inference.ModelInfo {
	return inference.ModelInfo{Path: e.path, Fingerprint: e.fp, Architecture: "llama"}
}
func (e *conceptEmbedder) Dim() int { return e.dim }
func (e *conceptEmbedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

func (e *conceptEmbedder) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

var testTexts = []string{
	"My sedan needs new tyres before winter.",
	"Tomatoes need full sun and regular watering.",
	"Compost improves the soil of the vegetable garden.",
	"The quarterly report is due on Friday.",
	"The automobile fleet report: two vans.",
}

// hybridStore is a store of five chunks, each with e's vector, e's vectors
// active, as the pipeline's embed stage leaves it.
func hybridStore(t *testing.T) (*store.DB, *conceptEmbedder) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "memd.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := newConceptEmbedder("fp-a")
	err = db.Update(func(tx *store.Tx) error {
		for i, text := range testTexts {
			note := &store.Note{Path: filepath.Join("/a", string(rune('a'+i))+".md"), Folder: "/a", Hash: text}
			if _, err := tx.PutNote(note, []store.NewChunk{{Chunk: store.Chunk{Text: text, StartLine: 1, EndLine: 1}}}); err != nil {
				return err
			}
		}
		var ids []uint64
		if err := tx.ForEachChunk(func(c *store.Chunk) error { ids = append(ids, c.ID); return nil }); err != nil {
			return err
		}
		for i, id := range ids {
			if err := tx.PutVector(e.fp, id, e.vector(testTexts[i])); err != nil {
				return err
			}
		}
		return tx.SetVectorState(store.VectorState{Active: e.fp})
	})
	if err != nil {
		t.Fatal(err)
	}
	return db, e
}

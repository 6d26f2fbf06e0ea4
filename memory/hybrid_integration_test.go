package memory

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// These tests run the real llama.cpp library (MEMD_LLAMA_LIB) on generated
// embedding models, with the notes indexed from files by a real
// pipeline.Indexer into a bbolt store, wired as cmd/memd's serve wires them.
// Everything a test starts is closed in its cleanups, in the reverse order
// of starting, as serve closes it.

func testLibrary(t *testing.T) *llama.Library { return llamatest.Library(t) }

func loadTestEmbedder(t *testing.T, path string) *inference.Embedder {
	t.Helper()
	e, err := inference.LoadEmbedder(testLibrary(t), inference.EmbedderConfig{Path: path, Threads: 2, BatchSize: 512, Sequences: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// vectorNotes are notes where BM25 and the vectors disagree. BM25, which
// stems, ranks a.md first: its plurals are the query's terms three times
// over, while the model reads other tokens in them. The vectors rank the
// target first: its text is the query said twice, so that the title the
// pipeline embeds with it (the file name) does not outweigh it.
var vectorNotes = map[string]string{
	"target.md": "river stone bridge, river stone bridge\n",
	"a.md":      "rivers, stones and bridges; rivers, stones and bridges; rivers, stones and bridges\n",
	"b.md":      "the bridge over the river is made of stone, old stone\n",
	"c.md":      "apples and pears in the orchard\n",
}

// vectorFolder writes vectorNotes into a new folder and returns its path
// with symlinks resolved, as the pipeline records it.
func vectorFolder(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range vectorNotes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newTestVectors(t *testing.T, db *store.DB, cfg vector.ServingConfig) *vector.Serving {
	cfg.Logger = testLog(t)
	v := vector.NewServing(db, cfg)
	t.Cleanup(func() { v.Close() })
	return v
}

// testLog shows the warnings of the pipeline and the vectors with the
// test's output.
func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// startPipeline makes the indexer memd's serve makes over db, with e for
// the embed stage and sink told of each commit, and runs it until stop is
// called or the test ends.
func startPipeline(t *testing.T, db *store.DB, e vector.Embedder, sink *vector.Serving) (ix *pipeline.Indexer, stop func()) {
	t.Helper()
	ix = pipeline.NewIndexer(db, pipeline.Config{Embedder: e, Vectors: sink, Logger: testLog(t)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("indexer: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return ix, stop
}

// indexFolder adds dir to ix and waits until its notes are committed.
func indexFolder(t *testing.T, ix *pipeline.Indexer, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := ix.AddFolder(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if err := ix.WaitIdle(ctx); err != nil {
		t.Fatalf("indexing %s: %v", dir, err)
	}
}

func TestHybridRecallLlama(t *testing.T) {
	ref, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 11, Name: "embed-a"})
	if err != nil {
		t.Fatal(err)
	}
	e := loadTestEmbedder(t, ref.Path)
	db := openTestStore(t)
	dir := vectorFolder(t)
	vecs := newTestVectors(t, db, vector.ServingConfig{Embedder: e})
	ix, _ := startPipeline(t, db, e, vecs)
	indexFolder(t, ix, dir)

	s := New(Config{DB: db, Indexer: ix, Vectors: vecs})
	t.Cleanup(func() { s.Close() })
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "river stone bridge", K: 3, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 || len(res.Hits) != 3 {
		t.Fatalf("hits %v warnings %q", paths(res.Hits), res.Warnings)
	}
	var vecRank, bm25Rank int
	for _, w := range res.Hits[0].Why {
		switch w.List {
		case "vector":
			vecRank = w.Rank
		case "bm25":
			bm25Rank = w.Rank
		}
	}
	if res.Hits[0].Path != filepath.Join(dir, "target.md") || vecRank != 1 || bm25Rank < 2 {
		t.Fatalf("first hit %s why %+v; want the target, ranked first by the vector list and not by BM25", res.Hits[0].Path, res.Hits[0].Why)
	}
	if st := vecs.Stats(); st.Len != 4 || st.Stored != 4 {
		t.Errorf("stats %+v", st)
	}
}

// heldEmbedder is the new embedder as the pipeline sees it: its Embed
// waits for release, so the test can recall while the re-embed is under
// way for as long as it needs.
type heldEmbedder struct {
	*inference.Embedder
	release chan struct{}
}

func (h *heldEmbedder) Embed(ctx context.Context, texts []string, prio inference.Priority) ([]inference.Embedding, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.Embedder.Embed(ctx, texts, prio)
}

// vectorsMeta is what the store says of the re-embed: the active and next
// fingerprints (store.VectorState) and how many
// vectors each of fps has.
func vectorsMeta(t *testing.T, db *store.DB, fps ...string) (active, next string, counts []int) {
	t.Helper()
	err := db.View(func(tx *store.Tx) error {
		st := tx.VectorState()
		active, next = st.Active, st.Next
		for _, fp := range fps {
			counts = append(counts, tx.VectorCount(fp))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return active, next, counts
}

func TestReembedWhileRecalling(t *testing.T) {
	dir := t.TempDir()
	refA, err := testmodel.WriteEmbedder(dir, testmodel.Config{Seed: 21, Name: "embed-a"})
	if err != nil {
		t.Fatal(err)
	}
	refB, err := testmodel.WriteEmbedder(dir, testmodel.Config{Seed: 22, Name: "embed-b", Embd: 96})
	if err != nil {
		t.Fatal(err)
	}
	db := openTestStore(t)
	notes := vectorFolder(t)

	// memd's first life: embedder A indexes the notes.
	a := loadTestEmbedder(t, refA.Path)
	fpA := a.Info().Fingerprint
	first := newTestVectors(t, db, vector.ServingConfig{Embedder: a})
	ix, stop := startPipeline(t, db, a, first)
	indexFolder(t, ix, notes)
	stop()
	first.Close()
	a.Close()

	// The next start has embedder B configured: A's vectors serve, with A
	// loaded again from its recorded path, until B's re-embed completes.
	b := loadTestEmbedder(t, refB.Path)
	fpB := b.Info().Fingerprint
	var opened atomic.Int32
	vecs := newTestVectors(t, db, vector.ServingConfig{Embedder: b, OpenEmbedder: func(path string) (vector.Embedder, error) {
		opened.Add(1)
		return inference.LoadEmbedder(testLibrary(t), inference.EmbedderConfig{Path: path, Threads: 1})
	}})
	if sv := served(vecs); sv == nil || sv.Fingerprint != fpA || opened.Load() != 1 {
		t.Fatalf("serving %+v after %d opens", sv, opened.Load())
	}
	held := &heldEmbedder{Embedder: b, release: make(chan struct{})}
	ix, _ = startPipeline(t, db, held, vecs)
	s := New(Config{DB: db, Indexer: ix, Vectors: vecs})
	t.Cleanup(func() { s.Close() })

	ctx, stopRecalls := context.WithCancel(context.Background())
	recallsDone := make(chan struct{})
	var recallErr error
	var answered, vectorAnswers atomic.Int64
	go func() {
		defer close(recallsDone)
		for ctx.Err() == nil {
			res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "river stone bridge", K: 2, Explain: true})
			switch {
			case err != nil:
				recallErr = err
				return
			case len(res.Hits) == 0 || len(res.Warnings) != 0:
				recallErr = fmt.Errorf("hits %v warnings %q", paths(res.Hits), res.Warnings)
				return
			}
			answered.Add(1)
			if len(res.Hits[0].Why) == 2 || res.Hits[0].Why[0].List == "vector" {
				vectorAnswers.Add(1)
			}
		}
	}()
	t.Cleanup(func() { stopRecalls(); <-recallsDone })
	// await polls cond, failing at once if the recalls stopped.
	await := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
			select {
			case <-recallsDone:
				t.Fatalf("recall failed during the re-embed (%d answered): %v", answered.Load(), recallErr)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}

	await("the pipeline to start re-embedding", func() bool { _, next, _ := vectorsMeta(t, db); return next == fpB })
	since := answered.Load()
	await("3 recalls answered during the re-embed", func() bool { return answered.Load()-since >= 3 })
	if active, next, n := vectorsMeta(t, db, fpA, fpB); active != fpA || next != fpB || n[0] != 4 || n[1] != 0 {
		t.Fatalf("during the re-embed: active %q next %q, %d old and %d new vectors", active, next, n[0], n[1])
	}
	if sv := served(vecs); sv == nil || sv.Fingerprint != fpA {
		t.Fatalf("during the re-embed: serving %+v", sv)
	}

	close(held.release)
	await("the pipeline to switch to B's vectors", func() bool { return vecs.Stats().Fingerprint == fpB })
	if err := vecs.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	since = answered.Load()
	await("a recall answered after the switch", func() bool { return answered.Load() > since })
	stopRecalls()
	<-recallsDone
	if recallErr != nil {
		t.Fatalf("recall failed during the re-embed (%d answered): %v", answered.Load(), recallErr)
	}
	sv := served(vecs)
	if sv == nil || sv.Fingerprint != fpB || sv.Index.Dim() != 96 {
		t.Fatalf("after the switch: %+v", sv)
	}
	if active, next, n := vectorsMeta(t, db, fpA, fpB); active != fpB || next != "" || n[0] != 0 || n[1] != 4 {
		t.Fatalf("after the switch: active %q next %q, %d old and %d new vectors", active, next, n[0], n[1])
	}
	if answered.Load() < 3 || vectorAnswers.Load() != answered.Load() {
		t.Fatalf("%d recalls answered, %d with the vector list", answered.Load(), vectorAnswers.Load())
	}
	res, err := s.Recall(context.Background(), memd.RecallRequest{Query: "river stone bridge", K: 1, Explain: true})
	if err != nil || res.Hits[0].Path != filepath.Join(notes, "target.md") {
		t.Fatalf("after the switch: %v %v", paths(res.Hits), err)
	}
	t.Logf("%d recalls answered during the re-embed", answered.Load())
}

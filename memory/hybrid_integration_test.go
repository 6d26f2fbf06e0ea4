package memory

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/pipeline"
	"github.com/memd-dev/memd/store"
)

// These tests run the real llama.cpp library (MEMD_LLAMA_LIB) on generated
// embedding models.

func testLibrary(t *testing.T) *llama.Library { return llamatest.Library(t) }

func loadTestEmbedder(t *testing.T, path string) *inference.Embedder {
	t.Helper()
	e, err := inference.LoadEmbedder(testLibrary(t), inference.EmbedderConfig{Path: path, Threads: 2, BatchSize: 512, Sequences: 8})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// reembed plays the pipeline's embed stage: every chunk's vector under e,
// committed, then told to the sink.
func reembed(t *testing.T, db *store.DB, e QueryEmbedder, sink *Vectors) {
	t.Helper()
	var chunks []*store.Chunk
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error { chunks = append(chunks, c); return nil })
	})
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	out, err := e.Embed(context.Background(), texts, inference.Background)
	if err != nil {
		t.Fatal(err)
	}
	fp := e.Info().Fingerprint
	err = db.Update(func(tx *store.Tx) error {
		for i, c := range chunks {
			if err := tx.PutVector(fp, c.ID, out[i].Vector); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sink != nil {
		for i, c := range chunks {
			sink.Put(fp, c.ID, out[i].Vector)
		}
	}
}

// activate records fp as the active vectors, dropping the others, and
// tells the sink: what the pipeline does when a re-embed completes.
func activate(t *testing.T, db *store.DB, fp string, sink *Vectors) {
	t.Helper()
	err := db.Update(func(tx *store.Tx) error {
		for _, old := range tx.VectorFingerprints() {
			if old != fp {
				if err := tx.DropVectors(old); err != nil {
					return err
				}
			}
		}
		return tx.SetMeta(pipeline.MetaVectorsActive, []byte(fp))
	})
	if err != nil {
		t.Fatal(err)
	}
	if sink != nil {
		sink.Switch(fp)
	}
}

// vectorStore is notes where BM25 and the vectors disagree: the target's
// text is the query itself, the others repeat the query's words.
func vectorStore(t *testing.T) *store.DB {
	return storeWith(t,
		testNote{path: "/n/target.md", mtime: day, texts: []string{"river stone bridge"}},
		testNote{path: "/n/a.md", mtime: day, texts: []string{"river river river stone stone bridge bridge and many other words that make it long"}},
		testNote{path: "/n/b.md", mtime: day, texts: []string{"the bridge over the river is made of stone, old stone"}},
		testNote{path: "/n/c.md", mtime: day, texts: []string{"apples and pears in the orchard"}},
	)
}

func TestHybridRecallLlama(t *testing.T) {
	ref, err := testmodel.WriteEmbedder(t.TempDir(), testmodel.Config{Seed: 11, Name: "embed-a"})
	if err != nil {
		t.Fatal(err)
	}
	e := loadTestEmbedder(t, ref.Path)
	defer e.Close()
	db := vectorStore(t)
	reembed(t, db, e, nil)
	activate(t, db, e.Info().Fingerprint, nil)

	s := New(Config{DB: db, Embedder: e})
	defer s.Close()
	res, err := s.Recall(context.Background(), RecallRequest{Query: "river stone bridge", K: 3, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 || len(res.Hits) != 3 {
		t.Fatalf("hits %v warnings %q", paths(res.Hits), res.Warnings)
	}
	var vecRank int
	for _, w := range res.Hits[0].Why {
		if w.List == "vector" {
			vecRank = w.Rank
		}
	}
	if res.Hits[0].Path != "/n/target.md" || vecRank != 1 {
		t.Fatalf("first hit %s why %+v; want the target, ranked first by the vector list", res.Hits[0].Path, res.Hits[0].Why)
	}
	if st := s.vectors.Stats(); st.Len != 4 || st.Stored != 4 {
		t.Errorf("stats %+v", st)
	}
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
	db := vectorStore(t)

	// memd's first life: embedder A indexes the notes.
	a := loadTestEmbedder(t, refA.Path)
	first := NewVectors(db, VectorsConfig{Embedder: a})
	reembed(t, db, a, first)
	activate(t, db, a.Info().Fingerprint, first)
	first.Close()
	a.Close()

	// The next start has embedder B configured: A's vectors serve, with A
	// loaded again from its recorded path, until B's re-embed completes.
	b := loadTestEmbedder(t, refB.Path)
	defer b.Close()
	var opened atomic.Int32
	vecs := NewVectors(db, VectorsConfig{Embedder: b, OpenEmbedder: func(path string) (QueryEmbedder, error) {
		opened.Add(1)
		return inference.LoadEmbedder(testLibrary(t), inference.EmbedderConfig{Path: path, Threads: 1})
	}})
	defer vecs.Close()
	s := New(Config{DB: db, Vectors: vecs})
	if sv, _ := vecs.searchable(); sv == nil || sv.fp != a.Info().Fingerprint || opened.Load() != 1 {
		t.Fatalf("serving %+v after %d opens", sv, opened.Load())
	}

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var answered, vectorAnswers atomic.Int64
	errs := make(chan error, 1)
	wg.Go(func() {
		for ctx.Err() == nil {
			res, err := s.Recall(context.Background(), RecallRequest{Query: "river stone bridge", K: 2, Explain: true})
			if err != nil || len(res.Hits) == 0 || len(res.Warnings) != 0 {
				select {
				case errs <- err:
				default:
				}
				if err == nil {
					t.Errorf("recall during re-embed: hits %v warnings %q", paths(res.Hits), res.Warnings)
				}
				return
			}
			answered.Add(1)
			if len(res.Hits[0].Why) == 2 || res.Hits[0].Why[0].List == "vector" {
				vectorAnswers.Add(1)
			}
		}
	})
	time.Sleep(50 * time.Millisecond)
	reembed(t, db, b, vecs)
	time.Sleep(50 * time.Millisecond)
	activate(t, db, b.Info().Fingerprint, vecs)
	if err := vecs.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	stop()
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("recall failed during the re-embed: %v", err)
	default:
	}
	sv, _ := vecs.searchable()
	if sv == nil || sv.fp != b.Info().Fingerprint || sv.index.Dim() != 96 {
		t.Fatalf("after the switch: %+v", sv)
	}
	if answered.Load() < 3 || vectorAnswers.Load() != answered.Load() {
		t.Fatalf("%d recalls answered, %d with the vector list", answered.Load(), vectorAnswers.Load())
	}
	res, err := s.Recall(context.Background(), RecallRequest{Query: "river stone bridge", K: 1, Explain: true})
	if err != nil || res.Hits[0].Path != "/n/target.md" {
		t.Fatalf("after the switch: %v %v", paths(res.Hits), err)
	}
	t.Logf("%d recalls answered during the re-embed", answered.Load())
}

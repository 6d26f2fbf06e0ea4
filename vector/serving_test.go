package vector

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd/store"
)

func chunkIDs(t *testing.T, db *store.DB) []uint64 {
	t.Helper()
	var ids []uint64
	_ = db.View(func(tx *store.Tx) error {
		return tx.ForEachChunk(func(c *store.Chunk) error { ids = append(ids, c.ID); return nil })
	})
	return ids
}

func searchIDs(v *Serving, q []float32) []uint64 {
	sv, _ := v.searchable()
	if sv == nil {
		return nil
	}
	var out []uint64
	for _, r := range sv.Index.Search(q, 10, nil) {
		out = append(out, r.Chunk)
	}
	return out
}

func TestVectorsFollowCommits(t *testing.T) {
	db, e := hybridStore(t)
	ids := chunkIDs(t, db)
	v := NewServing(db, ServingConfig{Embedder: e})
	defer v.Close()
	if st := v.Stats(); st.Len != len(ids) || st.Stored != len(ids) || st.Fingerprint != "fp-a" || st.Loading {
		t.Fatalf("after load %+v", st)
	}
	v.Put("fp-a", 99, e.vector("sedan"))
	v.Put("fp-other", 98, e.vector("sedan")) // not the serving embedder's: ignored
	v.Remove(ids[0])
	v.Remove(12345) // absent: nothing
	got := searchIDs(v, e.vector("car"))
	if len(got) != len(ids) || !slices.Contains(got, 99) || slices.Contains(got, 98) || slices.Contains(got, ids[0]) {
		t.Fatalf("index holds %v", got)
	}
	var model string
	_ = db.View(func(tx *store.Tx) error { model = tx.VectorModel("fp-a"); return nil })
	if model != e.path {
		t.Errorf("model path recorded %q", model)
	}
}

func TestVectorsReplayDuringLoad(t *testing.T) {
	db, e := hybridStore(t)
	ids := chunkIDs(t, db)
	v := NewServing(db, ServingConfig{})
	defer v.Close()
	v.cfg.Embedder = e
	// The load runs while these commits land; its goroutine waits for mu
	// to finish, so every op below is either in its snapshot or replayed.
	v.mu.Lock()
	v.startBuild("fp-a", e, false)
	if sv, warn := v.searchable0(); sv != nil || !strings.Contains(warn, "loading") {
		t.Errorf("while loading: %v %q", sv, warn)
	}
	v.put("fp-a", 77, e.vector("tomato"))
	v.remove(ids[1])
	v.mu.Unlock()
	if err := v.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := searchIDs(v, e.vector("tomato"))
	if !slices.Contains(got, 77) || slices.Contains(got, ids[1]) || len(got) != len(ids) {
		t.Fatalf("after replay %v (chunks %v)", got, ids)
	}
}

func TestVectorsBackgroundLoad(t *testing.T) {
	db, e := hybridStore(t)
	v := NewServing(db, ServingConfig{Embedder: e, SyncLoad: -1})
	defer v.Close()
	if err := v.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := v.Stats(); st.Len != 5 || len(st.Warnings) != 0 {
		t.Fatalf("%+v", st)
	}
}

// reembedStore is a store whose active vectors are embedder A's, with the
// configured embedder now B: a re-embed the pipeline has yet to finish.
func reembedStore(t *testing.T) (db *store.DB, a, b *conceptEmbedder) {
	db, a = hybridStore(t)
	a.path = filepath.Join(t.TempDir(), "a.gguf")
	if err := os.WriteFile(a.path, []byte("model a"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := NewServing(db, ServingConfig{Embedder: a}) // records a's path
	first.Close()
	b = newConceptEmbedder("fp-b")
	b.concepts = map[string]int{"car": 4, "automobile": 4, "sedan": 4}
	return db, a, b
}

func TestVectorsReembedServesPrevious(t *testing.T) {
	db, a, b := reembedStore(t)
	var opened []string
	open := func(path string) (Embedder, error) {
		opened = append(opened, path)
		return &conceptEmbedder{fp: "fp-a", path: path, concepts: a.concepts, dim: a.dim}, nil
	}
	v := NewServing(db, ServingConfig{Embedder: b, OpenEmbedder: open})
	defer v.Close()
	sv, warn := v.searchable()
	if sv == nil || sv.Fingerprint != "fp-a" || sv.Embedder == Embedder(b) || warn != "" {
		t.Fatalf("serving %+v %q", sv, warn)
	}
	if !slices.Equal(opened, []string{a.path}) {
		t.Fatalf("opened %v", opened)
	}
	prev := sv.Embedder.(*conceptEmbedder)
	if st := v.Stats(); len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "re-embedding") {
		t.Errorf("status warnings %q", st.Warnings)
	}

	// The pipeline re-embeds with b: its vectors wait in the store.
	ids := chunkIDs(t, db)
	err := db.Update(func(tx *store.Tx) error {
		for _, id := range ids {
			c, _ := tx.Chunk(id)
			if err := tx.PutVector("fp-b", id, b.vector(c.Text)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		v.Put("fp-b", id, []float32{1, 2, 3}) // another dimension: must not reach a's index
	}
	if sv, _ := v.searchable(); sv.Fingerprint != "fp-a" || sv.Index.Len() != len(ids) {
		t.Fatalf("during re-embed: %s %d", sv.Fingerprint, sv.Index.Len())
	}
	v.Switch("fp-b")
	if err := v.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	sv, _ = v.searchable()
	if sv.Fingerprint != "fp-b" || sv.Embedder != Embedder(b) || sv.Index.Len() != len(ids) {
		t.Fatalf("after switch %s %d", sv.Fingerprint, sv.Index.Len())
	}
	for deadline := time.Now().Add(5 * time.Second); !prev.isClosed(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the previous embedder stays loaded after the switch")
		}
	}
	if st := v.Stats(); len(st.Warnings) != 0 {
		t.Errorf("warnings after switch %q", st.Warnings)
	}
}

func TestVectorsSwitchToUnknown(t *testing.T) {
	db, e := hybridStore(t)
	v := NewServing(db, ServingConfig{Embedder: e})
	defer v.Close()
	v.Switch("fp-nobody")
	if sv, warn := v.searchable(); sv != nil || !strings.Contains(warn, "BM25 alone") {
		t.Fatalf("%v %q", sv, warn)
	}
}

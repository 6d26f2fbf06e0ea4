package vector

import (
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/inference/testmodel/conceptembed"
	"github.com/memd-dev/memd/store"
)

var testTexts = []string{
	"My sedan needs new tyres before winter.",
	"Tomatoes need full sun and regular watering.",
	"Compost improves the soil of the vegetable garden.",
	"The quarterly report is due on Friday.",
	"The automobile fleet report: two vans.",
}

// hybridStore is a store of five chunks, each with e's vector, e's vectors
// active, as the pipeline's embed stage leaves it.
func hybridStore(t *testing.T) (*store.DB, *conceptembed.Embedder) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "memd.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := conceptembed.New("fp-a")
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
			if err := tx.PutVector(e.Fingerprint, id, e.Vector(testTexts[i])); err != nil {
				return err
			}
		}
		return tx.SetVectorState(store.VectorState{Active: e.Fingerprint})
	})
	if err != nil {
		t.Fatal(err)
	}
	return db, e
}

package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/store"
)

// TestTwoPhase holds the models while a note is saved: the note must be
// stored and findable by keyword at once, with the heuristic's chunks, and
// the indexer not idle; once the models answer, the enriched version
// replaces it whole. Every snapshot taken meanwhile is one version or the
// other, never a mix (issue 15, two-phase indexing).
func TestTwoPhase(t *testing.T) {
	gate := make(chan struct{})
	g := newFakeGen("gen-a", func(adapter, user string) (string, error) {
		<-gate
		return headingChunks(adapter, user)
	})
	emb := &fakeEmb{fp: "emb-a", dim: 8}
	cfg := withGen(g)
	cfg.Embedder = emb
	dir := tempDir(t)
	ti := startIndexer(t, cfg)
	addAndWait(t, ti, dir)

	path := filepath.Join(dir, "fresh.md")
	writeFile(t, path, noteWithSections(3, 20)+"\nquokka\n")
	waitFor(t, "the note stored before the models answer", func() bool { return ti.note(path) != nil })
	n, cs := noteChunks(t, ti.db, path)
	if n.Chunker != ChunkerHeuristic || !strings.Contains(joinTexts(cs), "quokka") {
		t.Fatalf("phase one stored chunker %q, chunks %q; want the heuristic's, with the keyword", n.Chunker, joinTexts(cs))
	}
	if ti.Idle() {
		t.Error("idle while the note waits for its model stages")
	}
	if c := ti.counts(); c.Enriching != 1 {
		t.Errorf("%d notes queued for enrichment, want 1", c.Enriching)
	}

	stop := make(chan struct{})
	seen := make(chan map[string]bool)
	go func() { seen <- watchVersions(t, ti, path, stop) }()
	close(gate)
	ti.waitIdle(t)
	close(stop)
	versions := <-seen
	n, cs = noteChunks(t, ti.db, path)
	if n.Chunker != ChunkerModel || !strings.HasPrefix(cs[0].Title, "part ") || n.Summary == "" {
		t.Errorf("after enrichment: chunker %q, first chunk %q", n.Chunker, cs[0].Title)
	}
	if !strings.Contains(joinTexts(cs), "quokka") {
		t.Error("the keyword went with the enrichment")
	}
	_ = ti.db.View(func(tx *store.Tx) error {
		if got := tx.VectorCount("emb-a"); got != len(n.Chunks) {
			t.Errorf("%d vectors for %d enriched chunks", got, len(n.Chunks))
		}
		return nil
	})
	if versions["mixed"] {
		t.Error("a snapshot held a half-enriched note")
	}
	t.Logf("versions seen: %v", versions)
}

// watchVersions reads the note at path until stop and reports the kinds of
// snapshot seen: "heuristic" (no chunk summaries, no vectors), "enriched"
// (model chunks, each with a summary and a vector) or "mixed".
func watchVersions(t *testing.T, ti *testIndexer, path string, stop chan struct{}) map[string]bool {
	seen := map[string]bool{}
	for {
		select {
		case <-stop:
			return seen
		default:
		}
		_ = ti.db.View(func(tx *store.Tx) error {
			n, err := tx.Note(path)
			if err != nil {
				return nil
			}
			has := map[uint64]bool{}
			_ = tx.ForEachVector("emb-a", func(id uint64, _ store.QuantizedVector) error {
				has[id] = true
				return nil
			})
			summaries, vectors := 0, 0
			for _, id := range n.Chunks {
				c, err := tx.Chunk(id)
				if err != nil {
					seen["mixed"] = true
					return nil
				}
				summaries += boolRank(c.Summary != "")
				vectors += boolRank(has[id])
			}
			switch k := len(n.Chunks); {
			case n.Chunker == ChunkerHeuristic && summaries == 0 && vectors == 0:
				seen["heuristic"] = true
			case n.Chunker == ChunkerModel && summaries == k && vectors == k:
				seen["enriched"] = true
			default:
				seen["mixed"] = true
			}
			return nil
		})
	}
}

func joinTexts(cs []store.Chunk) string {
	var sb strings.Builder
	for _, c := range cs {
		sb.WriteString(c.Text)
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestEnrichReadsOnce: a round of the enricher reads its notes off the
// queue in one read transaction, not one per note.
func TestEnrichReadsOnce(t *testing.T) {
	dir := tempDir(t)
	const notes = 6
	for i := range notes {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("n%d.md", i)), noteWithSections(2, 10))
	}
	first := startIndexer(t, testConfig()) // no models: nothing queued for enrichment
	addAndWait(t, first, dir)
	first.stop()
	db := first.db
	if err := db.Update(func(tx *store.Tx) error {
		for i := range notes {
			if err := tx.QueueEnrich(filepath.Join(dir, fmt.Sprintf("n%d.md", i))); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	ti := wire(t, db, withGen(newFakeGen("gen-a", headingChunks)))
	before := db.ReadTxs()
	n, err := ti.enricher.round(context.Background())
	if err != nil || n != notes {
		t.Fatalf("round: %d notes, %v; want %d", n, err, notes)
	}
	if reads := db.ReadTxs() - before; reads != 1 {
		t.Errorf("a round of %d notes took %d read transactions, want 1", notes, reads)
	}
	if st, _ := noteChunks(t, db, filepath.Join(dir, "n0.md")); st.Chunker != ChunkerModel {
		t.Errorf("after the round the note's chunker is %q, want the model's", st.Chunker)
	}
}

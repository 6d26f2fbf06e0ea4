package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// BenchmarkKeywordFreshness measures how long a saved note takes to be
// findable by keyword (its new chunks, with their postings, committed)
// with the generator, its chunk adapter and the embedder all configured
// (random-weight test models on llama.cpp, MEMD_LLAMA_LIB): "idle" saves
// one note at a time into an indexed folder; "busy" saves one while the
// first MEMD_BENCH_FRESH_NOTES notes of the dendron vault (16 unless set)
// are being indexed. Reported: the median and the slowest of the saves,
// in ms. The test models make the chunk stage fall back and every answer
// run to its token cap, so the stages are slow, as real models are.
//
//	MEMD_LLAMA_LIB=... go test -run '^$' -bench KeywordFreshness -benchtime 1x ./pipeline/
func BenchmarkKeywordFreshness(b *testing.B) {
	testLibrary(b)
	n := 16
	if v, err := strconv.Atoi(os.Getenv("MEMD_BENCH_FRESH_NOTES")); err == nil && v > 0 {
		n = v
	}
	busy := firstNotes(b, dendronVault(b), n)
	models := benchModels(b)
	l := testLibrary(b)
	g, err := inference.LoadGenerator(l, inference.GeneratorConfig{
		Path: models.gen, Adapters: map[string]string{"memory-chunk": models.adapter}, Slots: 8, ContextPerSlot: 2048,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	e, err := inference.LoadEmbedder(l, inference.EmbedderConfig{Path: models.emb, Sequences: 32, BatchSize: 2048})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	cfg := testConfig()
	cfg.Generator, cfg.Embedder = g, e
	cfg.Debounce = defaultDebounce // the daemon's: a save is findable no sooner
	b.Run("idle", func(b *testing.B) { benchFreshness(b, cfg, "") })
	b.Run("busy", func(b *testing.B) { benchFreshness(b, cfg, busy) })
}

// benchFreshness saves 5 notes per b.N, one after the other, each once the
// previous one is findable, and reports how long each took to be. With
// load set, that folder is added first and the saves run while it indexes.
func benchFreshness(b *testing.B, cfg Config, load string) {
	var waits []time.Duration
	for range b.N {
		b.StopTimer()
		db := openStore(b, filepath.Join(b.TempDir(), "memd.db"))
		dir := tempDir(b)
		ix := NewIndexer(db, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ix.Run(ctx) }()
		if _, err := ix.AddFolder(ctx, dir); err != nil {
			b.Fatal(err)
		}
		if load != "" {
			if _, err := ix.AddFolder(ctx, load); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for i := range 5 {
			word := fmt.Sprintf("freshword%dx%d", len(waits), i)
			path := filepath.Join(dir, word+".md")
			t0 := time.Now()
			writeFile(b, path, "# Saved\n\nA note about "+word+" and nothing else.\n")
			for !findable(db, path, word) {
				time.Sleep(5 * time.Millisecond)
			}
			waits = append(waits, time.Since(t0))
		}
		b.StopTimer()
		cancel()
		<-done
		db.Close()
	}
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(waits[len(waits)-1].Milliseconds()), "max-ms")
	b.Logf("%d saves: %v", len(waits), waits)
}

// findable reports whether a chunk of the note at path holds word.
func findable(db *store.DB, path, word string) bool {
	found := false
	_ = db.View(func(tx *store.Tx) error {
		n, err := tx.Note(path)
		if err != nil {
			return nil
		}
		for _, id := range n.Chunks {
			if c, err := tx.Chunk(id); err == nil && strings.Contains(c.Text, word) {
				found = true
			}
		}
		return nil
	})
	return found
}

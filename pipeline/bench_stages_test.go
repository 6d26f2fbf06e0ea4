package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/testmodel"
)

// BenchmarkIndexStages indexes the first MEMD_BENCH_STAGE_NOTES notes (8
// unless set) of the dendron vault with all three model stages on
// llama.cpp (MEMD_LLAMA_LIB): random-weight models, so every chunk answer
// falls back and every request generates up to its MaxTokens, the worst
// case. MEMD_BENCH_SHAPES picks the shapes: "tiny" (default; a smoke run)
// or "1b" (a generator of TinyLlama-1.1B's shapes in F16, an embedder of
// EmbeddingGemma-300m's layer shapes with a 32k vocabulary). "batched"
// decodes 8 rows per context and runs 8 notes' stages at once; "serial"
// one row, one note, one sequence per embed decode. Reported: notes/min,
// and per stage the prompt and generated (embedded) tokens per second of
// wall time. MEMD_BENCH_THREADS sets the decode threads (default: CPUs).
//
//	MEMD_LLAMA_LIB=... go test -run '^$' -bench IndexStages -benchtime 1x ./pipeline/
func BenchmarkIndexStages(b *testing.B) {
	testLibrary(b)
	vault := dendronVault(b)
	n := 8
	if v, err := strconv.Atoi(os.Getenv("MEMD_BENCH_STAGE_NOTES")); err == nil && v > 0 {
		n = v
	}
	dir := firstNotes(b, vault, n)
	models := benchModels(b)
	for _, mode := range []struct {
		name                string
		slots, stages, seqs int
	}{{"batched", 8, 8, 32}, {"serial", 1, 1, 1}} {
		b.Run(mode.name, func(b *testing.B) {
			benchStages(b, dir, n, models, mode.slots, mode.stages, mode.seqs)
		})
	}
}

type stageModels struct{ gen, adapter, emb string }

var (
	benchModelsOnce sync.Once
	benchModelsVal  stageModels
	benchModelsErr  error
)

func benchModels(b *testing.B) stageModels {
	benchModelsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "memd-bench-models")
		if err != nil {
			benchModelsErr = err
			return
		}
		gen := testmodel.Config{Name: "gen-tiny", Seed: 1, Embd: 64, Layers: 2, Heads: 4, HeadsKV: 2, Ctx: 2048}
		emb := testmodel.Config{Name: "emb-tiny", Seed: 2, Embd: 64, Layers: 2, Heads: 4, Ctx: 2048}
		if os.Getenv("MEMD_BENCH_SHAPES") == "1b" {
			gen = testmodel.TinyLlama()
			emb = testmodel.Config{Name: "emb-300m-shape", Vocab: 32000, Embd: 768, Layers: 24, Heads: 3, HeadsKV: 1, FF: 1152, Ctx: 2048, F16: true, Seed: 2}
		}
		t0 := time.Now()
		var m stageModels
		if m.gen, err = testmodel.WriteLlama(dir, gen); err == nil {
			if m.adapter, err = testmodel.WriteLoRA(dir, gen, testmodel.LoRAConfig{Name: "memory-chunk", Seed: 3}); err == nil {
				m.emb, err = testmodel.WriteLlama(dir, emb)
			}
		}
		benchModelsVal, benchModelsErr = m, err
		b.Logf("generated models in %v", time.Since(t0).Round(time.Millisecond))
	})
	if benchModelsErr != nil {
		b.Fatal(benchModelsErr)
	}
	return benchModelsVal
}

// firstNotes copies the first n note files of vault, by path, into a temp
// folder.
func firstNotes(b *testing.B, vault string, n int) string {
	var paths []string
	_ = filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isNoteName(p) && !strings.HasPrefix(d.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	slices.Sort(paths)
	if len(paths) > n {
		paths = paths[:n]
	}
	dst := tempDir(b)
	for _, p := range paths {
		rel, _ := filepath.Rel(vault, p)
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		writeFile(b, filepath.Join(dst, rel), string(data))
	}
	return dst
}

func benchStages(b *testing.B, dir string, n int, m stageModels, slots, stages, seqs int) {
	threads, _ := strconv.Atoi(os.Getenv("MEMD_BENCH_THREADS"))
	l := testLibrary(b)
	g, err := inference.LoadGenerator(l, inference.GeneratorConfig{
		Path: m.gen, Adapters: map[string]string{"memory-chunk": m.adapter},
		Slots: slots, ContextPerSlot: 2048, Threads: threads,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	e, err := inference.LoadEmbedder(l, inference.EmbedderConfig{Path: m.emb, Sequences: seqs, BatchSize: 2048, Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var wall time.Duration
	var st StageStats
	for range b.N {
		b.StopTimer()
		db := openStore(b, filepath.Join(b.TempDir(), "memd.db"))
		cfg := testConfig()
		cfg.Generator, cfg.Embedder, cfg.Stages = g, e, stages
		ix := NewIndexer(db, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		b.StartTimer()
		t0 := time.Now()
		go func() { done <- ix.Run(ctx) }()
		if _, err := ix.AddFolder(ctx, dir); err != nil {
			b.Fatal(err)
		}
		if err := ix.WaitIdle(ctx); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		b.StopTimer()
		cancel()
		<-done
		s := ix.StageStats()
		st.Chunk, st.Summarize, st.Embed = addStat(st.Chunk, s.Chunk), addStat(st.Summarize, s.Summarize), addStat(st.Embed, s.Embed)
		db.Close()
	}
	sec := wall.Seconds()
	b.ReportMetric(float64(n*b.N)/sec*60, "notes/min")
	for _, s := range []struct {
		name string
		st   StageStat
	}{{"chunk", st.Chunk}, {"sum", st.Summarize}, {"embed", st.Embed}} {
		b.ReportMetric(float64(s.st.PromptTokens)/sec, s.name+"-in-tok/s")
		if s.name != "embed" {
			b.ReportMetric(float64(s.st.OutputTokens)/sec, s.name+"-out-tok/s")
		}
	}
	b.Logf("%d notes in %v: chunk %d requests (%d in, %d out tokens), summarize %d (%d in, %d out), embed %d texts (%d tokens)",
		n*b.N, wall.Round(time.Millisecond), st.Chunk.Requests, st.Chunk.PromptTokens, st.Chunk.OutputTokens,
		st.Summarize.Requests, st.Summarize.PromptTokens, st.Summarize.OutputTokens, st.Embed.Requests, st.Embed.PromptTokens)
}

func addStat(a, b StageStat) StageStat {
	return StageStat{a.Requests + b.Requests, a.PromptTokens + b.PromptTokens, a.OutputTokens + b.OutputTokens, a.Busy + b.Busy}
}

package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/vector"
)

// Stage names, as StageStats and logs call them.
const (
	stageChunk     = "chunk"
	stageSummarize = "summarize"
)

// StageStat is the work one model stage has done since the indexer started.
type StageStat struct {
	Requests     int64         // completions, or texts embedded
	PromptTokens int64         // prompt tokens, or tokens embedded
	OutputTokens int64         // generated tokens (0 for embed)
	Busy         time.Duration // summed wall time of the requests (they overlap)
}

// StageStats is the work of every model stage.
type StageStats struct {
	Chunk, Summarize, Embed StageStat
	// Repaired counts chunk answers (windows) that needed a repair.
	Repaired int64
}

type stageCounter struct {
	requests, prompt, output, busy atomic.Int64
}

func (c *stageCounter) add(requests, prompt, output int, d time.Duration) {
	c.requests.Add(int64(requests))
	c.prompt.Add(int64(prompt))
	c.output.Add(int64(output))
	c.busy.Add(int64(d))
}

func (c *stageCounter) load() StageStat {
	return StageStat{c.requests.Load(), c.prompt.Load(), c.output.Load(), time.Duration(c.busy.Load())}
}

type stageCounters struct {
	chunk, summarize, embed stageCounter
	repaired                atomic.Int64
}

// of is the counter of a completion stage (the embed stage counts its
// texts into embed directly).
func (s *stageCounters) of(stage string) *stageCounter {
	if stage == stageChunk {
		return &s.chunk
	}
	return &s.summarize
}

// modelStages runs the model stages of a note: chunk with the generator's
// chunk adapter, then summarize with the base model and embed side by side.
// It is fixed at NewIndexer; with no model configured it runs nothing and
// notes keep the heuristic's chunks and the lead summary.
type modelStages struct {
	cfg Config
	log *slog.Logger

	chunkOn     bool           // the chunk model runs
	chunkStatus string         // ChunkerStatus
	vectors     *vector.Writer // embeds the chunks; nil without an embedder
	noTemplate  atomic.Bool    // the generator has no chat template: plain prompts
	stats       stageCounters
	warned      sync.Map // the failures of chunk requests already logged as warnings
}

func newModelStages(cfg Config, log *slog.Logger) *modelStages {
	ms := &modelStages{cfg: cfg, log: log}
	ms.chunkOn, ms.chunkStatus = chunkReady(cfg)
	return ms
}

// statsSoFar returns what the stages have done since they were made.
func (ms *modelStages) statsSoFar() StageStats {
	return StageStats{ms.stats.chunk.load(), ms.stats.summarize.load(), ms.stats.embed.load(), ms.stats.repaired.Load()}
}

// on reports whether any model is configured: notes go through the stages.
func (ms *modelStages) on() bool { return ms.cfg.Generator != nil || ms.cfg.Embedder != nil }

// chunkReady reports whether the chunk stage runs, and if not, why; the
// reason is for status.
func chunkReady(cfg Config) (bool, string) {
	if cfg.Generator == nil {
		return false, "heuristic: no generator model configured"
	}
	info := cfg.Generator.Info()
	if !slices.Contains(info.Adapters, cfg.ChunkAdapter) {
		return false, "heuristic: the generator has no " + cfg.ChunkAdapter +
			" adapter (load one with --adapter " + cfg.ChunkAdapter + "=PATH); summaries still use the generator"
	}
	return true, "model: " + info.DisplayName() + " with adapter " + cfg.ChunkAdapter
}

// chunkContext is the token budget of one chunk request.
func (ms *modelStages) chunkContext() int {
	if ms.cfg.ChunkContext > 0 {
		return ms.cfg.ChunkContext
	}
	if g, ok := ms.cfg.Generator.(adapterFiles); ok && g.Config().ContextPerSlot > 0 {
		return g.Config().ContextPerSlot
	}
	return 2048
}

// complete runs one greedy Background completion of a system and a user
// turn through the model's chat template, or as plain text when the model
// has none, and returns its text.
func (ms *modelStages) complete(ctx context.Context, stage, adapter, system, user string, maxTokens int) (string, error) {
	req := inference.CompletionRequest{Adapter: adapter, MaxTokens: maxTokens, Priority: inference.Background}
	t0 := time.Now()
	var c inference.Completion
	var err error
	if !ms.noTemplate.Load() {
		req.Messages = []inference.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
		c, err = ms.cfg.Generator.Complete(ctx, req)
		if errors.Is(err, inference.ErrNoChatTemplate) {
			ms.noTemplate.Store(true)
		}
	}
	if ms.noTemplate.Load() {
		req.Messages, req.Prompt = nil, plainPrompt(system, user)
		c, err = ms.cfg.Generator.Complete(ctx, req)
	}
	ms.stats.of(stage).add(1, c.PromptTokens, c.Generated, time.Since(t0))
	return c.Text, err
}

// aborts reports whether err means the note's stages must be redone later
// rather than fall back.
func aborts(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, inference.ErrClosed)
}

// run runs the model stages of outs' parsed notes, Config.Stages notes
// at a time, so that their requests meet in the inference schedulers. It
// fails only when the work must be redone later (ctx ended, a model
// closed); the notes then stay queued for enrichment.
func (ms *modelStages) run(ctx context.Context, outs []outcome) error {
	var todo []int
	for i := range outs {
		if outs[i].kind == outPut && outs[i].parsed != nil {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(ms.cfg.Stages, len(todo)) {
		wg.Go(func() {
			var terms termCounter
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				o := &outs[todo[k]]
				if err := ms.stageNote(ctx, &terms, o); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// stageNote runs chunk, then summarize and embed side by side, for one
// note.
func (ms *modelStages) stageNote(ctx context.Context, terms *termCounter, o *outcome) error {
	pn := o.parsed
	defer func() { o.parsed = nil }()
	if ms.chunkOn {
		cs, name, err := ms.chunkNote(ctx, pn)
		if err != nil {
			return err
		}
		o.chunks = newChunks(pn, cs, terms, ms.cfg, o.boiler)
		o.note.Chunker = name
	}
	var embedErr error
	var wg sync.WaitGroup
	if ms.vectors != nil && len(o.chunks) > 0 {
		wg.Go(func() {
			vecs, err := ms.vectors.EmbedChunks(ctx, o.chunks)
			switch {
			case err == nil:
				o.vectors, o.vectorFP = vecs, ms.vectors.Fingerprint()
			case aborts(ctx, err):
				embedErr = err
			default:
				ms.log.Warn("embed note; it is written without vectors and embedded again later", "path", o.job.Path, "err", err)
			}
		})
	}
	var sumErr error
	if ms.cfg.Generator != nil {
		sumErr = ms.summarize(ctx, pn, o)
	}
	wg.Wait()
	return errors.Join(sumErr, embedErr)
}

// StageStats returns what the model stages have done since NewIndexer.
func (ix *Indexer) StageStats() StageStats { return ix.stages.statsSoFar() }

// ChunkerStatus says which chunker cuts new notes and, when it is the
// heuristic, why.
func (ix *Indexer) ChunkerStatus() string { return ix.stages.chunkStatus }

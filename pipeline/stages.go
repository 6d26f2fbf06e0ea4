package pipeline

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd/inference"
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

// StageStats returns what the model stages have done since NewIndexer.
func (ix *Indexer) StageStats() StageStats {
	return StageStats{ix.stats.chunk.load(), ix.stats.summarize.load(), ix.stats.embed.load(), ix.stats.repaired.Load()}
}

// staged reports whether outcomes go through model stages before commit.
func (ix *Indexer) staged() bool { return ix.cfg.Generator != nil || ix.cfg.Embedder != nil }

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

// ChunkerStatus says which chunker cuts new notes and, when it is the
// heuristic, why.
func (ix *Indexer) ChunkerStatus() string { return ix.chunkStatus }

// chunkContext is the token budget of one chunk request.
func (ix *Indexer) chunkContext() int {
	if ix.cfg.ChunkContext > 0 {
		return ix.cfg.ChunkContext
	}
	if g, ok := ix.cfg.Generator.(adapterFiles); ok && g.Config().ContextPerSlot > 0 {
		return g.Config().ContextPerSlot
	}
	return 2048
}

// complete runs one greedy Background completion of a system and a user
// turn through the model's chat template, or as plain text when the model
// has none, and returns its text.
func (ix *Indexer) complete(ctx context.Context, stage, adapter, system, user string, maxTokens int) (string, error) {
	req := inference.CompletionRequest{Adapter: adapter, MaxTokens: maxTokens, Priority: inference.Background}
	t0 := time.Now()
	var c inference.Completion
	var err error
	if !ix.noTemplate.Load() {
		req.Messages = []inference.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
		c, err = ix.cfg.Generator.Complete(ctx, req)
		if errors.Is(err, inference.ErrNoChatTemplate) {
			ix.noTemplate.Store(true)
		}
	}
	if ix.noTemplate.Load() {
		req.Messages, req.Prompt = nil, plainPrompt(system, user)
		c, err = ix.cfg.Generator.Complete(ctx, req)
	}
	ix.stats.of(stage).add(1, c.PromptTokens, c.Generated, time.Since(t0))
	return c.Text, err
}

// aborts reports whether err means the note's stages must be redone later
// rather than fall back.
func aborts(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, inference.ErrClosed)
}

// runStages runs the model stages of the batch's notes, Config.Stages notes
// at a time, so that their requests meet in the inference schedulers. It
// fails only when the work must be redone later (ctx ended, a model
// closed); the batch is then not committed.
func (ix *Indexer) runStages(ctx context.Context, outs []outcome) error {
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
	now := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(ix.cfg.Stages, len(todo)) {
		wg.Go(func() {
			var terms termCounter
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				o := &outs[todo[k]]
				o.staged = now
				if err := ix.stageNote(ctx, &terms, o); err != nil {
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
func (ix *Indexer) stageNote(ctx context.Context, terms *termCounter, o *outcome) error {
	pn := o.parsed
	defer func() { o.parsed = nil }()
	if ix.chunkOn {
		cs, name, err := ix.chunkNote(ctx, pn)
		if err != nil {
			return err
		}
		o.chunks = newChunks(pn, cs, terms, ix.cfg)
		o.note.Chunker = name
	}
	var embedErr error
	var wg sync.WaitGroup
	if ix.vectors != nil && len(o.chunks) > 0 {
		wg.Go(func() {
			vecs, err := ix.vectors.EmbedChunks(ctx, o.chunks)
			switch {
			case err == nil:
				o.vectors, o.vectorFP = vecs, ix.vectors.Fingerprint()
			case aborts(ctx, err):
				embedErr = err
			default:
				ix.log.Warn("embed note; it is written without vectors and embedded again later", "path", o.job.Path, "err", err)
			}
		})
	}
	var sumErr error
	if ix.cfg.Generator != nil {
		sumErr = ix.summarize(ctx, pn, o)
	}
	wg.Wait()
	return errors.Join(sumErr, embedErr)
}

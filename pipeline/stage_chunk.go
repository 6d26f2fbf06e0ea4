package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
)

// chunkNote cuts pn with the chunk model: the note's content blocks go to
// the model in windows (planWindows), each answer is parsed and repaired,
// and each window decides the chunk starts in its core. When an answer
// cannot be repaired, or the request fails, the heuristic cuts the whole
// note and the chunker is ChunkerFallback. The error is non-nil only when
// the work must be redone later: ctx ended or the generator closed.
func (ms *modelStages) chunkNote(ctx context.Context, pn *parse.Note) ([]chunk.Chunk, string, error) {
	var idx []int // block Index of each content block
	for _, b := range pn.Blocks {
		if b.Kind != parse.FrontMatter {
			idx = append(idx, b.Index)
		}
	}
	if len(idx) == 0 {
		return nil, ChunkerModel, nil
	}
	lines := make([]string, len(idx))
	cost := make([]int, len(idx))
	for p, i := range idx {
		lines[p] = blockLine(&pn.Blocks[i])
		cost[p] = int(float64(chunk.EstimateTokens(lines[p])+1)*tokenSafety) + 1
	}
	budget := int(float64(ms.chunkContext())/tokenSafety) - chunk.EstimateTokens(chunkSystem) - templateTokens
	windows := planWindows(cost, budget)

	starts, err := ms.windowStarts(ctx, pn, idx, lines, windows)
	if err != nil {
		if aborts(ctx, err) {
			return nil, "", err
		}
		if req, ok := errors.AsType[*chunkRequestError](err); ok {
			ms.warnOnce(req)
		}
		ms.log.Debug("chunk model answer not usable; the heuristic cut the note", "note", pn.Title, "err", err)
		return chunk.Heuristic(pn, ms.cfg.Chunk), ChunkerFallback, nil
	}
	var out []chunk.Chunk
	for k, s := range starts {
		end := idx[len(idx)-1]
		if k+1 < len(starts) {
			end = starts[k+1].start - 1
		}
		c := chunk.Span(pn, s.start, end)
		if s.title != "" {
			c.Title = s.title
		}
		for _, part := range chunk.SplitOversize(pn, c, ms.cfg.Chunk) {
			if s.title != "" {
				part.Title = s.title
			}
			out = append(out, part)
		}
	}
	return out, ChunkerModel, nil
}

// windowStarts asks the model about every window at once and returns the
// chunk starts (block Index, with titles) the windows' cores decide, in
// order; the first is the first content block.
func (ms *modelStages) windowStarts(ctx context.Context, pn *parse.Note, idx []int, lines []string, windows []chunkWindow) ([]chunkSpan, error) {
	isHeading := func(i int) bool { return pn.Blocks[i].Kind == parse.Heading }
	results := make([][]chunkSpan, len(windows))
	errs := make([]error, len(windows))
	var wg sync.WaitGroup
	for wi, w := range windows {
		wg.Go(func() {
			n := w.hi - w.lo + 1
			text, err := ms.complete(ctx, stageChunk, ms.cfg.ChunkAdapter, chunkSystem, chunkUser(pn, lines[w.lo:w.hi+1]), answerTokens(n))
			if err != nil {
				errs[wi] = &chunkRequestError{err}
				return
			}
			spans, err := parseChunkAnswer(text)
			if err != nil {
				errs[wi] = fmt.Errorf("window %d-%d: %w: %.80q", idx[w.lo], idx[w.hi], err, text)
				return
			}
			rep, repairs := repairSpans(spans, idx[w.lo], idx[w.hi], isHeading)
			if rep == nil {
				errs[wi] = fmt.Errorf("window %d-%d: no chunk in the note's blocks: %.80q", idx[w.lo], idx[w.hi], text)
				return
			}
			if len(repairs) > 0 {
				ms.stats.repaired.Add(1)
				ms.log.Debug("chunk answer repaired", "note", pn.Title, "repairs", repairs)
			}
			results[wi] = rep
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var starts []chunkSpan
	for wi, w := range windows {
		for _, s := range results[wi] {
			if s.start >= idx[w.coreLo] && s.start <= idx[w.coreHi] {
				starts = append(starts, s)
			}
		}
	}
	if len(starts) == 0 || starts[0].start != idx[0] {
		// The first window's answer always starts at its first block.
		return nil, errors.New("stitched windows do not start at the first block")
	}
	slices.SortFunc(starts, func(a, b chunkSpan) int { return a.start - b.start })
	return slices.CompactFunc(starts, func(a, b chunkSpan) bool { return a.start == b.start }), nil
}

// chunkRequestError is a chunk request the generator refused or failed (a
// chat template it cannot render, say), as against an answer that could
// not be used: the first is the configuration's fault and worth a warning.
type chunkRequestError struct{ err error }

func (e *chunkRequestError) Error() string { return "chunk request: " + e.err.Error() }
func (e *chunkRequestError) Unwrap() error { return e.err }

// warnOnce logs a failed chunk request as a warning the first time its
// message is seen, so a generator that fails every note says so once, not
// once a note, and not only at debug level.
func (ms *modelStages) warnOnce(e *chunkRequestError) {
	if _, seen := ms.warned.LoadOrStore(e.err.Error(), true); !seen {
		ms.log.Warn("the chunk model's request failed; the heuristic chunker cuts the notes instead (memctl status counts them as fallback)", "err", e.err)
	}
}

package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// queryEmbedTimeout bounds the wait for the query's vector: an embedder
// busy with a long indexing decode must not hold a person's recall, which
// then answers from BM25 with a warning.
const queryEmbedTimeout = 3 * time.Second

// candidate is a chunk that passed the filters, with its note.
type candidate struct {
	chunk *store.Chunk
	note  *store.Note
	score float64
}

// queryVector is the outcome of embedding a query.
type queryVector struct {
	vec []float32
	err error
}

// embedQuery embeds q in the embedder's query format, before indexing work.
func embedQuery(ctx context.Context, e QueryEmbedder, q string) queryVector {
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	out, err := e.Embed(ctx, []string{QueryText(e.Info(), q)}, inference.Interactive)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return queryVector{err: fmt.Errorf("the embedder did not answer within %s", queryEmbedTimeout)}
	case err != nil:
		return queryVector{err: err}
	case len(out) != 1 || len(out[0].Vector) == 0:
		return queryVector{err: errors.New("the embedder returned no vector")}
	}
	return queryVector{vec: out[0].Vector}
}

// QueryText is q in the query format of the embedding model info
// describes: EmbeddingGemma was trained with "task: search result | query:
// …" (its documents as "title: … | text: …"); other models take the query
// as it is.
func QueryText(info inference.ModelInfo, q string) string {
	if info.IsEmbeddingGemma() {
		return "task: search result | query: " + q
	}
	return q
}

// hybrid answers a recall from the BM25 list and the vector list of sv,
// fused by reciprocal rank. A query embedding that fails makes it BM25
// alone with a warning. Both lists rank chunk ids only; chunks are read
// from the store for the hits returned, not for every candidate.
func (s *Service) hybrid(ctx context.Context, sv *servingIndex, q string, terms []string, qtf map[string]int,
	k int, r RecallRequest, res *RecallResult) error {
	depth := s.fusion.depth(k)
	qv := make(chan queryVector, 1)
	go func() { qv <- embedQuery(ctx, sv.embedder, q) }()

	var (
		lexical []ranked
		allowed map[uint64]struct{}
	)
	err := s.db.View(func(tx *store.Tx) error {
		scores, err := s.bm25.rank(tx, terms, qtf)
		if err != nil {
			return err
		}
		if !r.Filters.isZero() {
			if allowed, err = allowedChunks(tx, r.Filters); err != nil {
				return err
			}
		}
		lexical = topAllowed(scores, depth, allowed)
		return nil
	})
	vec := <-qv // always received, so the goroutine ends with the recall
	if err != nil {
		return err
	}
	want := k
	if s.reranker != nil {
		want = max(k, min(s.fusion.RerankDepth, maxRerank))
	}
	bm := fusedList{name: "bm25", weight: s.fusion.BM25Weight, entries: lexical}
	if vec.err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("the query could not be embedded (%v); recall is BM25 alone", vec.err))
		res.Hits, err = s.readHits(fuse(s.fusion.K, bm), want, r, false)
		return err
	}
	var accept func(uint64) bool
	if allowed != nil {
		accept = func(c uint64) bool { _, ok := allowed[c]; return ok }
	}
	near := sv.index.Search(vec.vec, depth, accept)
	vl := fusedList{name: "vector", weight: s.fusion.VectorWeight, entries: make([]ranked, len(near))}
	for i, n := range near {
		vl.entries[i] = ranked{chunk: n.Chunk, score: float64(n.Score)}
	}
	res.Hits, err = s.readHits(fuse(s.fusion.K, bm, vl), want, r, true)
	return err
}

// topAllowed is the best n of scores among the allowed chunks (all when
// allowed is nil), best first.
func topAllowed(scores []scored, n int, allowed map[uint64]struct{}) []ranked {
	if allowed != nil {
		kept := scores[:0]
		for _, sc := range scores {
			if _, ok := allowed[sc.chunk]; ok {
				kept = append(kept, sc)
			}
		}
		scores = kept
	}
	top := topScored(scores, min(n, len(scores)))
	out := make([]ranked, len(top))
	for i, sc := range top {
		out[i] = ranked{chunk: sc.chunk, score: sc.score}
	}
	return out
}

// readHits reads the first want chunks of merged that still exist and pass
// the filters (a note may have changed since the lists were made) into
// hits. fusedScore says whether Score is the fused score or, for BM25
// alone, the BM25 score.
func (s *Service) readHits(merged []fused, want int, r RecallRequest, fusedScore bool) ([]Hit, error) {
	hits := make([]Hit, 0, min(want, len(merged)))
	err := s.db.View(func(tx *store.Tx) error {
		notes := noteCache{}
		for _, f := range merged {
			c, ok := notes.candidate(tx, f.chunk, r.Filters)
			if !ok {
				continue
			}
			score := f.score
			if !fusedScore {
				score = f.why[0].Score
			}
			h := hitOf(c.chunk, c.note, score)
			if r.Explain {
				h.Why = f.why
			}
			hits = append(hits, h)
			if len(hits) == want {
				break
			}
		}
		return nil
	})
	return hits, err
}

// allowedChunks is every chunk of the notes that pass f. The vector scan
// asks about every vector, so it gets a set rather than store reads.
func allowedChunks(tx *store.Tx, f Filters) (map[uint64]struct{}, error) {
	prefix := f.PathPrefix
	if folder := strings.TrimRight(f.Folder, "/"); folder != "" && !strings.HasPrefix(prefix, folder+"/") {
		prefix = folder + "/"
	}
	out := map[uint64]struct{}{}
	err := tx.ForEachNote(prefix, func(n *store.Note) error {
		if f.matchNote(n) {
			for _, id := range n.Chunks {
				out[id] = struct{}{}
			}
		}
		return nil
	})
	return out, err
}

package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/store"
)

// queryEmbedTimeout bounds the wait for the query's vector: an embedder
// busy with a long indexing decode must not hold a person's recall, which
// then answers from BM25 with a warning.
const queryEmbedTimeout = 3 * time.Second

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
//
// BM25 ranks and the filters are scoped in a read transaction of its own
// while the query embeds; the wait for the query's vector (at most
// queryEmbedTimeout) holds none, since an open bbolt reader stalls any
// commit that grows the file and, behind it, every other transaction. A
// second read transaction then searches, fuses and reads the hits, each
// note decoded once over both; a chunk that went between the two is
// skipped (chunk ids are never reused).
func (s *Service) hybrid(ctx context.Context, sv *servingIndex, q string, terms []string, qtf map[string]int,
	k int, r memd.RecallRequest, res *memd.RecallResult) error {
	depth, want := s.fusion.depth(k), s.hitsWanted(k)
	var vec queryVector
	embedded := make(chan struct{})
	go func() {
		defer close(embedded)
		vec = embedQuery(ctx, sv.embedder, q)
	}()

	sc := newScope(r.Filters, r.PerNote)
	var scores []scored
	var bm fusedList
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		if scores, err = s.bm25.rank(tx, terms, qtf); err != nil {
			return err
		}
		if err := sc.readNotes(tx); err != nil {
			return err
		}
		scores = sc.keep(scores)
		bm = fusedList{name: "bm25", weight: s.fusion.BM25Weight, entries: topRanked(scores, depth)}
		return nil
	})
	<-embedded // the goroutine ends with the recall, whatever failed
	if err != nil {
		return err
	}
	return s.db.View(func(tx *store.Tx) error {
		if vec.err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("the query could not be embedded (%v); recall is BM25 alone", vec.err))
			// No deeper than the BM25 list would have gone into fusion.
			res.Hits = bm25Hits(tx, scores, min(want, depth), sc, r.Explain)
			return nil
		}
		near := sv.index.Search(vec.vec, depth, sc.accepts())
		vl := fusedList{name: "vector", weight: s.fusion.VectorWeight, entries: make([]ranked, len(near))}
		for i, n := range near {
			vl.entries[i] = ranked{chunk: n.Chunk, score: float64(n.Score)}
		}
		res.Hits = fusedHits(tx, fuse(s.fusion.K, bm, vl), want, sc, r.Explain)
		return nil
	})
}

// topRanked is the best n of scores as a list to fuse, best first. It does
// not drop or add entries of scores, only reorders them.
func topRanked(scores []scored, n int) []ranked {
	top := topScored(scores, min(n, len(scores)))
	out := make([]ranked, len(top))
	for i, sc := range top {
		out[i] = ranked{chunk: sc.chunk, score: sc.score}
	}
	return out
}

// fusedHits reads the first want chunks of merged that are in sc into
// hits, scored by fusion.
func fusedHits(tx *store.Tx, merged []fused, want int, sc *scope, explain bool) []memd.Hit {
	hits := make([]memd.Hit, 0, min(want, len(merged)))
	for _, f := range merged {
		h, ok := sc.hit(tx, f.chunk, f.score)
		if !ok {
			continue
		}
		if explain {
			h.Why = f.why
		}
		hits = append(hits, h)
		if len(hits) == want {
			break
		}
	}
	return hits
}

package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
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
func embedQuery(ctx context.Context, e vector.Embedder, q string) queryVector {
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	out, err := e.Embed(ctx, []string{vector.QueryText(e.Info(), q)}, inference.Interactive)
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
func (s *Service) hybrid(ctx context.Context, sv *vector.Served, q string, query rank.Query,
	k int, r RecallRequest, res *RecallResult) error {
	depth, want := s.fusion.ListDepth(k), s.hitsWanted(k)
	var vec queryVector
	embedded := make(chan struct{})
	go func() {
		defer close(embedded)
		vec = embedQuery(ctx, sv.Embedder, q)
	}()

	sc := newScope(r.Filters)
	var bm rank.List
	err := s.db.View(func(tx *store.Tx) error {
		scores, err := s.lexical(tx, q, query, res)
		if err != nil {
			return err
		}
		if err := sc.readNotes(tx); err != nil {
			return err
		}
		scores = sc.keep(scores)
		bm = s.bm25List(rank.Top(scores, min(depth, len(scores))))
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
			res.Hits = hitsOf(tx, rank.Fuse(s.fusion.K, bm), min(want, depth), sc, r.Explain)
			return nil
		}
		near := sv.Index.Search(vec.vec, depth, sc.accepts())
		vl := rank.List{Name: "vector", Weight: s.fusion.VectorWeight, Entries: make([]rank.Scored, len(near))}
		for i, n := range near {
			vl.Entries[i] = rank.Scored{Chunk: n.Chunk, Score: float64(n.Score)}
		}
		res.Hits = hitsOf(tx, rank.Fuse(s.fusion.K, bm, vl), want, sc, r.Explain)
		return nil
	})
}

package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/rank"
	"github.com/memd-dev/memd/store"
	"github.com/memd-dev/memd/vector"
)

// queryEmbedTimeout bounds the wait for the query's vector: an embedder
// busy with a long indexing decode must not hold a person's recall, which
// then answers from BM25 with a warning.
const queryEmbedTimeout = 3 * time.Second

// queryVector is the outcome of embedding a query: its vector and the
// similarity floor a vector-only hit must pass.
type queryVector struct {
	vec   []float32
	floor float32
	err   error
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
	k int, r memd.RecallRequest, res *memd.RecallResult) error {
	depth, want := s.fusion.ListDepth(k), s.hitsWanted(k)
	var vec queryVector
	embedded := make(chan struct{})
	go func() {
		defer close(embedded)
		vec = embedQuery(ctx, sv.Embedder, q)
		if vec.err == nil {
			vec.floor, vec.err = s.vectorFloor(ctx, sv)
		}
	}()

	sc := newScope(r.Filters, r.PerNote)
	var bm rank.List
	err := s.db.View(func(tx *store.Tx) error {
		scores, err := s.lexical(tx, q, query, s.expands(r), res)
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
			res.Hits = hitsOf(tx, rank.Fuse(s.fusion.K, bm), min(want, depth), sc, r.Explain, nil)
			return nil
		}
		vl := rank.List{Name: "vector", Weight: s.fusion.VectorWeight}
		inBM25 := make(map[uint64]bool, len(bm.Entries))
		for _, e := range bm.Entries {
			inBM25[e.Chunk] = true
		}
		for _, n := range sv.Index.Search(vec.vec, depth, sc.accepts()) {
			if n.Score > vec.floor || inBM25[n.Chunk] {
				vl.Entries = append(vl.Entries, rank.Scored{Chunk: n.Chunk, Score: float64(n.Score)})
			}
		}
		// A chunk BM25 cannot rank (template boilerplate) is no hit by its
		// vector either; checked only as far as the hits go.
		ranked := func(f rank.Fused) bool {
			return len(f.Why) != 1 || f.Why[0].List != vl.Name || tx.ChunkRanked(f.Chunk)
		}
		res.Hits = hitsOf(tx, rank.Fuse(s.fusion.K, bm, vl), want, sc, r.Explain, ranked)
		return nil
	})
}

// vectorFloor is the similarity a vector-only hit must pass: the config's
// when it sets one, else the embedder's calibrated on sv (vector.Served.
// Floor), so a query about nothing in the notes finds nothing.
func (s *Service) vectorFloor(ctx context.Context, sv *vector.Served) (float32, error) {
	switch {
	case s.vectorFloorSet < 0:
		return float32(math.Inf(-1)), nil
	case s.vectorFloorSet > 0:
		return float32(s.vectorFloorSet), nil
	}
	f, err := sv.Floor(ctx)
	if err != nil {
		return 0, fmt.Errorf("calibrate the similarity floor: %w", err)
	}
	return f, nil
}

package vector

import (
	"context"
	"errors"
	"slices"

	"github.com/memd-dev/memd/inference"
)

// A vector search returns its k nearest chunks whatever the query, so
// without a floor recall answers a query about something no note mentions
// with k unrelated notes. Where the floor lies depends on the embedder (one
// model's unrelated texts score 0.2, another's 0.6) and on the notes, so
// unless the config sets one it is calibrated per serving index: the
// similarity that queries about nothing reach. A vector-only hit at or
// under it is noise.

// noiseQueries are letter strings no language has words for, so what they
// reach in an index is what any unrelated query reaches.
var noiseQueries = []string{
	"qzxj vwpk", "xkcq zvgh tplq", "vbnm qazx wsxe", "jqzx kvwp brrt",
	"pqwm zlxv nrtb", "wxqz fjvk", "zzqv xpjk lmwq", "kxqj vzpw",
}

// Floor is the similarity a vector-only hit must pass in s: the median
// over noiseQueries of the best similarity each reaches, worked out once
// per serving index (one embed call). An index of fewer than two vectors
// has no floor.
// A calibration that fails is tried again by the next recall.
func (s *Served) Floor(ctx context.Context) (float32, error) {
	s.floorMu.Lock()
	defer s.floorMu.Unlock()
	if s.floorSet {
		return s.floor, nil
	}
	f, err := s.calibrate(ctx)
	if err != nil {
		return 0, err
	}
	s.floor, s.floorSet = f, true
	return f, nil
}

func (s *Served) calibrate(ctx context.Context) (float32, error) {
	if s.Index.Len() < 2 {
		return -1, nil
	}
	texts := make([]string, len(noiseQueries))
	for i, q := range noiseQueries {
		texts[i] = QueryText(s.Embedder.Info(), q)
	}
	embs, err := s.Embedder.Embed(ctx, texts, inference.Interactive)
	if err != nil {
		return 0, err
	}
	if len(embs) != len(texts) {
		return 0, errors.New("the embedder returned too few vectors")
	}
	best := make([]float32, 0, len(embs))
	for _, e := range embs {
		if r := s.Index.Search(e.Vector, 1, nil); len(r) == 1 {
			best = append(best, r[0].Score)
		}
	}
	if len(best) == 0 {
		return -1, nil
	}
	slices.Sort(best)
	return best[len(best)/2], nil
}

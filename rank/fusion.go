package rank

import "slices"

// Fusion says how recall merges its ranked lists (BM25, vectors); a recall
// with one list is a fusion of that one. The zero value
// of every field means its default.
type Fusion struct {
	// K is reciprocal rank fusion's constant: a hit at rank r of a list
	// adds weight/(K+r). Larger K flattens the difference between top
	// ranks. Default 60, the value of Cormack et al. (SIGIR 2009) that most
	// hybrid search engines ship.
	K int
	// BM25Weight and VectorWeight scale each list's contribution; default
	// 1 each, the conventional choice. Equal weights trust the vector list
	// as much as BM25: on SciFact a vector list of pure noise halves BM25's
	// nDCG@10 at 1:1 (TestSciFactNoiseFusion), so the defaults assume a
	// real embedding model and must be re-measured with one.
	BM25Weight   float64
	VectorWeight float64
	// Depth is how many of each list's best (filtered) chunks are fused;
	// default max(100, 2×k of the request). A chunk below it in a list
	// gets nothing from that list.
	Depth int
	// RerankDepth is how many of the fused best the reranker re-scores;
	// default 30. Only used when a reranker is loaded.
	RerankDepth int
}

// DefaultFusion holds the values zero fields of Fusion take.
var DefaultFusion = Fusion{K: 60, BM25Weight: 1, VectorWeight: 1, RerankDepth: 30}

// WithDefaults fills f's zero fields from DefaultFusion.
func (f Fusion) WithDefaults() Fusion {
	if f.K <= 0 {
		f.K = DefaultFusion.K
	}
	if f.BM25Weight <= 0 {
		f.BM25Weight = DefaultFusion.BM25Weight
	}
	if f.VectorWeight <= 0 {
		f.VectorWeight = DefaultFusion.VectorWeight
	}
	if f.RerankDepth <= 0 {
		f.RerankDepth = DefaultFusion.RerankDepth
	}
	return f
}

// ListDepth is how deep each list goes for a request of k hits.
func (f Fusion) ListDepth(k int) int {
	if f.Depth > 0 {
		return max(f.Depth, k)
	}
	return max(100, 2*k)
}

// List is one list to fuse: its name (as a hit's reasons say it), its
// weight, and its entries best first.
type List struct {
	Name    string
	Weight  float64
	Entries []Scored
}

// Why says where one list ranked a fused chunk, with the list's own score.
type Why struct {
	List  string
	Rank  int
	Score float64
}

// Fused is a chunk's fused score and where each list ranked it.
type Fused struct {
	Chunk uint64
	Score float64
	Why   []Why // one per list that holds the chunk, in list order
}

// Fuse merges lists by weighted reciprocal rank: score(c) = Σ weight /
// (k + rank), rank 1-based, over the lists that hold c, divided by the
// score of a chunk ranked first in every list. A fused score is thus on
// one scale whatever the lists: in (0, 1], 1 for first everywhere, and
// falling with rank (with k 60, rank 10 of a single list scores 0.87).
// Ties go to the chunk ranked best in any list, then to the older chunk,
// so the order is deterministic. One list keeps its order.
func Fuse(k int, lists ...List) []Fused {
	var top float64
	for _, l := range lists {
		top += l.Weight / float64(k+1)
	}
	if len(lists) == 1 {
		return fuseOne(k, lists[0], top)
	}
	at := map[uint64]int{}
	var out []Fused
	best := map[uint64]int{} // best rank of a chunk in any list
	for _, l := range lists {
		for i, e := range l.Entries {
			rank := i + 1
			j, ok := at[e.Chunk]
			if !ok {
				j = len(out)
				at[e.Chunk] = j
				out = append(out, Fused{Chunk: e.Chunk})
				best[e.Chunk] = rank
			}
			out[j].Score += l.Weight / float64(k+rank) / top
			out[j].Why = append(out[j].Why, Why{List: l.Name, Rank: rank, Score: e.Score})
			best[e.Chunk] = min(best[e.Chunk], rank)
		}
	}
	slices.SortFunc(out, func(a, b Fused) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case best[a.Chunk] != best[b.Chunk]:
			return best[a.Chunk] - best[b.Chunk]
		case a.Chunk < b.Chunk:
			return -1
		case a.Chunk > b.Chunk:
			return 1
		}
		return 0
	})
	return out
}

// fuseOne is Fuse of one list, which keeps its order: no map and no sort,
// as BM25-only recall runs it on every query.
func fuseOne(k int, l List, top float64) []Fused {
	out := make([]Fused, len(l.Entries))
	whys := make([]Why, len(l.Entries)) // one allocation for every entry's reason
	for i, e := range l.Entries {
		whys[i] = Why{List: l.Name, Rank: i + 1, Score: e.Score}
		out[i] = Fused{Chunk: e.Chunk, Score: l.Weight / float64(k+i+1) / top, Why: whys[i : i+1 : i+1]}
	}
	return out
}

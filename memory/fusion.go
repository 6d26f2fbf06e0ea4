package memory

import (
	"slices"

	"github.com/memd-dev/memd"
)

// Fusion says how recall merges its BM25 and vector lists. The zero value
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

func (f Fusion) withDefaults() Fusion {
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

// depth is how deep each list goes for a request of k hits.
func (f Fusion) depth(k int) int {
	if f.Depth > 0 {
		return max(f.Depth, k)
	}
	return max(100, 2*k)
}

// ranked is one list's entry: a chunk and the list's own score for it.
type ranked struct {
	chunk uint64
	score float64
}

// fusedList is one list to fuse: its name (as Reason.List says it), its
// weight, and its entries best first.
type fusedList struct {
	name    string
	weight  float64
	entries []ranked
}

// fused is a chunk's fused score and where each list ranked it.
type fused struct {
	chunk uint64
	score float64
	why   []memd.Reason // one per list that holds the chunk, in list order
}

// fuse merges lists by weighted reciprocal rank: score(c) = Σ weight /
// (k + rank), rank 1-based, over the lists that hold c. Ties go to the
// chunk ranked best in any list, then to the older chunk, so the order is
// deterministic.
func fuse(k int, lists ...fusedList) []fused {
	at := map[uint64]int{}
	var out []fused
	best := map[uint64]int{} // best rank of a chunk in any list
	for _, l := range lists {
		for i, e := range l.entries {
			rank := i + 1
			j, ok := at[e.chunk]
			if !ok {
				j = len(out)
				at[e.chunk] = j
				out = append(out, fused{chunk: e.chunk})
				best[e.chunk] = rank
			}
			out[j].score += l.weight / float64(k+rank)
			out[j].why = append(out[j].why, memd.Reason{List: l.name, Rank: rank, Score: e.score})
			best[e.chunk] = min(best[e.chunk], rank)
		}
	}
	slices.SortFunc(out, func(a, b fused) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		case best[a.chunk] != best[b.chunk]:
			return best[a.chunk] - best[b.chunk]
		case a.chunk < b.chunk:
			return -1
		case a.chunk > b.chunk:
			return 1
		}
		return 0
	})
	return out
}

package rank

import (
	"container/heap"
	"slices"
)

// Better orders a before b: the higher score, and on a tie the older chunk,
// so results are deterministic.
func Better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Chunk < b.Chunk
}

func sortScored(s []Scored) {
	slices.SortFunc(s, func(a, b Scored) int {
		switch {
		case Better(a, b):
			return -1
		case Better(b, a):
			return 1
		}
		return 0
	})
}

// Top returns the m best of s, best first, in O(len(s) log m): a full sort
// of every matching chunk costs more than the scoring at 100k chunks. s is
// reordered.
func Top(s []Scored, m int) []Scored {
	if len(s) <= m {
		sortScored(s)
		return s
	}
	h := worstFirst(make([]Scored, 0, m))
	for _, x := range s {
		if len(h) < m {
			heap.Push(&h, x)
		} else if Better(x, h[0]) {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	out := []Scored(h)
	sortScored(out)
	return out
}

// worstFirst is a heap whose root is the worst kept candidate.
type worstFirst []Scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return Better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(Scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

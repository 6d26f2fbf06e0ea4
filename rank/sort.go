package memory

import (
	"container/heap"
	"slices"
)

func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.chunk < b.chunk
}

// sortScored orders best first; ties go to the older chunk so results are
// deterministic.
func sortScored(s []scored) {
	slices.SortFunc(s, func(a, b scored) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
}

// topScored returns the m best of s, best first, in O(len(s) log m): a full
// sort of every matching chunk costs more than the scoring at 100k chunks.
func topScored(s []scored, m int) []scored {
	if len(s) <= m {
		sortScored(s)
		return s
	}
	h := worstFirst(make([]scored, 0, m))
	for _, x := range s {
		if len(h) < m {
			heap.Push(&h, x)
		} else if better(x, h[0]) {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	out := []scored(h)
	sortScored(out)
	return out
}

// worstFirst is a heap whose root is the worst kept candidate.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

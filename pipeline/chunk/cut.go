package chunk

import (
	"math"
	"slices"
)

// Size costs, on the scale of the break scores. Every chunk costs
// costChunk; a chunk under the target costs up to costUnder more, under the
// minimum up to costSmall more again, and between target and maximum up to
// costOver, so a chunk a little over the target beats two small ones.
const (
	costChunk = 8
	costUnder = 4
	costSmall = 16
	costOver  = 30
)

// plan holds cut's arrays, kept for the next note by a Cutter.
type plan struct {
	prefix, from, breaks []int
	score, best          []float64
}

// cut picks the breaks (unit positions where a new chunk starts) that
// minimize the total of size costs less break scores, by dynamic
// programming over break positions: O(units × units per MaxTokens). The
// breaks are p's until it cuts again.
func (p *plan) cut(us []unit, o Options) []int {
	if len(us) == 0 {
		return nil
	}
	prefix := resize(p.prefix, len(us)+1)
	score := resize(p.score, len(us)) // score[i]: a break before unit i
	for i, u := range us {
		prefix[i+1] = prefix[i] + u.tokens
		if i > 0 {
			score[i] = float64(breakScore(&us[i-1], &us[i]))
		}
	}
	best := resize(p.best, len(us)+1)
	from := resize(p.from, len(us)+1)
	for j := 1; j <= len(us); j++ {
		best[j] = math.Inf(1)
		for i := j - 1; i >= 0; i-- {
			size := prefix[j] - prefix[i]
			if size > o.MaxTokens && i < j-1 {
				break // a single unit is within MaxTokens by construction
			}
			c := best[i] + sizeCost(size, o) - score[i]
			if c < best[j] {
				best[j], from[j] = c, i
			}
		}
	}
	breaks := p.breaks[:0]
	for j := from[len(us)]; j > 0; j = from[j] {
		breaks = append(breaks, j)
	}
	for l, r := 0, len(breaks)-1; l < r; l, r = l+1, r-1 {
		breaks[l], breaks[r] = breaks[r], breaks[l]
	}
	p.prefix, p.score, p.best, p.from, p.breaks = prefix, score, best, from, breaks
	return breaks
}

// resize returns s at length n, its elements zero, in s's memory when it
// is large enough.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

func sizeCost(size int, o Options) float64 {
	c := float64(costChunk)
	t := float64(o.TargetTokens)
	switch s := float64(size); {
	case size <= o.TargetTokens:
		c += costUnder * (t - s) / t
		if size < o.MinTokens {
			m := float64(o.MinTokens)
			c += costSmall * (m - s) / m
		}
	default:
		c += costOver * (s - t) / math.Max(float64(o.MaxTokens-o.TargetTokens), 1)
	}
	return c
}

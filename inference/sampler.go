package inference

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// sampler picks tokens for one row. It keeps that row's state (random
// stream, penalty window) and reuses its buffers across steps, so a step
// allocates nothing once the row has warmed up.
type sampler struct {
	opt    Sampling
	rng    *rand.Rand
	window []int32 // last RepeatLastN tokens, oldest first
	cands  []candidate
	seen   []int32    // the window's distinct tokens, ascending
	over   []override // the penalty's changes to the current row
}

type candidate struct {
	tok   int32
	logit float32
	p     float64
}

const defaultRepeatLastN = 64

func newSampler(opt Sampling, prompt []int32) *sampler {
	s := &sampler{opt: opt}
	if !opt.Greedy() {
		seed := opt.Seed
		if seed == 0 {
			seed = rand.Uint64()
		}
		s.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	}
	if s.penalized() {
		if s.opt.RepeatLastN <= 0 {
			s.opt.RepeatLastN = defaultRepeatLastN
		}
		for _, t := range prompt {
			s.accept(t)
		}
	}
	return s
}

func (s *sampler) penalized() bool {
	return s.opt.RepeatPenalty > 0 && s.opt.RepeatPenalty != 1
}

// accept records a token of the row's history for the repeat penalty.
func (s *sampler) accept(tok int32) {
	if !s.penalized() {
		return
	}
	if len(s.window) == s.opt.RepeatLastN {
		copy(s.window, s.window[1:])
		s.window = s.window[:len(s.window)-1]
	}
	s.window = append(s.window, tok)
}

// sample picks the next token from one row of logits. The logits are not
// modified: they are the Decoder's (llama.cpp's memory).
func (s *sampler) sample(logits []float32) int32 {
	row := logitsRow{raw: logits}
	if s.penalized() {
		row.over = s.penalize(logits)
	}
	if s.opt.Greedy() {
		return row.argmax()
	}
	c := s.candidates(row)
	c = s.filter(c)
	return s.draw(c)
}

// penalize returns the repeat penalty's changes to raw: each distinct
// token of the window, ascending, with its logit divided by the penalty
// when positive and multiplied by it otherwise.
func (s *sampler) penalize(raw []float32) []override {
	s.seen = append(s.seen[:0], s.window...)
	slices.Sort(s.seen)
	s.seen = slices.Compact(s.seen)
	pen := s.opt.RepeatPenalty
	over := s.over[:0]
	for _, t := range s.seen {
		if t < 0 || int(t) >= len(raw) {
			continue
		}
		l := raw[t]
		if l > 0 {
			l /= pen
		} else {
			l *= pen
		}
		over = append(over, override{tok: t, logit: l})
	}
	s.over = over
	return over
}

// override replaces the logit of one token.
type override struct {
	tok   int32
	logit float32
}

// logitsRow is one row of logits as the sampler reads it: raw, which is
// never written, with the few logits in over read in place of raw's. So
// the repeat penalty changes a handful of tokens without copying a row of
// the whole vocabulary (a megabyte for Gemma's 262k tokens).
type logitsRow struct {
	raw  []float32
	over []override // ascending by tok, each within raw
}

// scan visits every token of the row in order: each stretch of unchanged
// tokens as run(lo, hi), standing for raw[lo:hi], and each changed token
// as one(tok, logit).
func (r logitsRow) scan(run func(lo, hi int), one func(tok int, logit float32)) {
	lo := 0
	for _, o := range r.over {
		if t := int(o.tok); t > lo {
			run(lo, t)
		}
		one(int(o.tok), o.logit)
		lo = int(o.tok) + 1
	}
	if lo < len(r.raw) {
		run(lo, len(r.raw))
	}
}

// argmax returns the first token of the largest logit, as llama.cpp's
// greedy sampler does, so ties resolve the same way.
func (r logitsRow) argmax() int32 {
	// From -Inf, so that a NaN (which compares false) is never the best.
	best, top := -1, float32(math.Inf(-1))
	r.scan(func(lo, hi int) {
		b, bl := best, top
		for i, l := range r.raw[lo:hi] {
			if l > bl {
				b, bl = lo+i, l
			}
		}
		best, top = b, bl
	}, func(t int, l float32) {
		if l > top {
			best, top = t, l
		}
	})
	if best < 0 { // nothing above -Inf: the first token that is a number
		best = max(0, slices.IndexFunc(r.raw, func(l float32) bool { return l == l }))
	}
	return int32(best)
}

// candidates returns the tokens that survive top-k, sorted by logit,
// highest first. A NaN logit (a broken model's) is never a candidate.
func (s *sampler) candidates(r logitsRow) []candidate {
	c := s.cands[:0]
	n := len(r.raw)
	k := s.opt.TopK
	if k <= 0 || k > n {
		k = n
	}
	if k < n/4 {
		// Keep a sorted list of the k best; cheaper than sorting the vocab.
		r.scan(func(lo, hi int) {
			cc := c
			for i, l := range r.raw[lo:hi] {
				if l != l || len(cc) == k && l <= cc[k-1].logit {
					continue
				}
				cc = insertTop(cc, k, candidate{tok: int32(lo + i), logit: l})
			}
			c = cc
		}, func(t int, l float32) {
			if l != l || len(c) == k && l <= c[k-1].logit {
				return
			}
			c = insertTop(c, k, candidate{tok: int32(t), logit: l})
		})
	} else {
		r.scan(func(lo, hi int) {
			for i, l := range r.raw[lo:hi] {
				if l == l {
					c = append(c, candidate{tok: int32(lo + i), logit: l})
				}
			}
		}, func(t int, l float32) {
			if l == l {
				c = append(c, candidate{tok: int32(t), logit: l})
			}
		})
		slices.SortStableFunc(c, func(a, b candidate) int { return cmp.Compare(b.logit, a.logit) })
		c = c[:min(k, len(c))]
	}
	if len(c) == 0 { // every logit NaN: token 0, as greedy picks
		c = append(c, candidate{tok: 0})
	}
	s.cands = c
	return c
}

// insertTop puts x into c, sorted by logit highest first and holding at
// most k, after any equal logit (as the stable sort of the other path
// orders ties: earlier tokens first); the last one drops out when c is
// full.
func insertTop(c []candidate, k int, x candidate) []candidate {
	at, _ := slices.BinarySearchFunc(c, x.logit, func(a candidate, l float32) int {
		if a.logit >= l {
			return -1
		}
		return 1
	})
	if len(c) < k {
		c = append(c, candidate{})
	}
	copy(c[at+1:], c[at:len(c)-1])
	c[at] = x
	return c
}

// softmax fills p for c at temperature t; c is sorted, so c[0] is the max.
func softmax(c []candidate, t float64) {
	var sum float64
	mx := float64(c[0].logit)
	for i := range c {
		c[i].p = math.Exp((float64(c[i].logit) - mx) / t)
		sum += c[i].p
	}
	for i := range c {
		c[i].p /= sum
	}
}

func (s *sampler) filter(c []candidate) []candidate {
	if p := float64(s.opt.TopP); p > 0 && p < 1 {
		softmax(c, 1)
		var cum float64
		for i := range c {
			cum += c[i].p
			if cum >= p {
				c = c[:i+1]
				break
			}
		}
	}
	if m := float64(s.opt.MinP); m > 0 {
		softmax(c, 1)
		limit := m * c[0].p
		n := 1
		for n < len(c) && c[n].p >= limit {
			n++
		}
		c = c[:n]
	}
	return c
}

func (s *sampler) draw(c []candidate) int32 {
	softmax(c, float64(s.opt.Temperature))
	u := s.rng.Float64()
	var cum float64
	for _, x := range c {
		cum += x.p
		if u < cum {
			return x.tok
		}
	}
	return c[len(c)-1].tok
}

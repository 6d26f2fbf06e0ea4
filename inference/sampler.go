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
	opt     Sampling
	rng     *rand.Rand
	window  []int32 // last RepeatLastN tokens, oldest first
	work    []float32
	cands   []candidate
	penalty map[int32]struct{}
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
		s.penalty = make(map[int32]struct{}, s.opt.RepeatLastN)
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
// modified.
func (s *sampler) sample(logits []float32) int32 {
	if s.penalized() {
		s.work = append(s.work[:0], logits...)
		s.applyPenalty(s.work)
		logits = s.work
	}
	if s.opt.Greedy() {
		return argmax(logits)
	}
	c := s.candidates(logits)
	c = s.filter(c)
	return s.draw(c)
}

func (s *sampler) applyPenalty(logits []float32) {
	clear(s.penalty)
	for _, t := range s.window {
		s.penalty[t] = struct{}{}
	}
	pen := s.opt.RepeatPenalty
	for t := range s.penalty {
		if int(t) >= len(logits) || t < 0 {
			continue
		}
		if logits[t] > 0 {
			logits[t] /= pen
		} else {
			logits[t] *= pen
		}
	}
}

// argmax returns the first index of the largest logit, as llama.cpp's greedy
// sampler does, so ties resolve the same way.
func argmax(logits []float32) int32 {
	best := 0
	for i := 1; i < len(logits); i++ {
		if logits[i] > logits[best] {
			best = i
		}
	}
	return int32(best)
}

// candidates returns the tokens that survive top-k, sorted by logit,
// highest first.
func (s *sampler) candidates(logits []float32) []candidate {
	c := s.cands[:0]
	k := s.opt.TopK
	if k <= 0 || k > len(logits) {
		k = len(logits)
	}
	if k < len(logits)/4 {
		// Keep a sorted list of the k best; cheaper than sorting the vocab.
		for i, l := range logits {
			if len(c) == k && l <= c[k-1].logit {
				continue
			}
			at, _ := slices.BinarySearchFunc(c, l, func(a candidate, l float32) int {
				return cmp.Compare(l, a.logit)
			})
			if len(c) < k {
				c = append(c, candidate{})
			}
			copy(c[at+1:], c[at:len(c)-1])
			c[at] = candidate{tok: int32(i), logit: l}
		}
	} else {
		for i, l := range logits {
			c = append(c, candidate{tok: int32(i), logit: l})
		}
		slices.SortStableFunc(c, func(a, b candidate) int { return cmp.Compare(b.logit, a.logit) })
		c = c[:k]
	}
	s.cands = c
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

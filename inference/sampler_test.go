package inference

import (
	"math"
	"testing"
)

func TestSamplerGreedy(t *testing.T) {
	s := newSampler(Sampling{}, nil)
	if got := s.sample([]float32{0.1, 3, -1, 3}); got != 1 {
		t.Fatalf("greedy picked %d, want 1 (first of the tied maxima)", got)
	}
}

func TestSamplerRepeatPenalty(t *testing.T) {
	logits := []float32{2.0, 1.9, -1, -1.05}
	s := newSampler(Sampling{RepeatPenalty: 1.1}, []int32{0})
	if got := s.sample(logits); got != 1 {
		t.Fatalf("penalized argmax %d, want 1", got)
	}
	if logits[0] != 2.0 {
		t.Fatal("sample modified the logits")
	}
	// A negative logit is multiplied: -1 becomes -1.1, below -1.05.
	s = newSampler(Sampling{RepeatPenalty: 1.1}, []int32{2})
	if got := s.sample([]float32{-2, -2, -1, -1.05}); got != 3 {
		t.Fatalf("negative penalized argmax %d, want 3", got)
	}
	// Outside the window the penalty is gone.
	s = newSampler(Sampling{RepeatPenalty: 1.1, RepeatLastN: 2}, []int32{0, 3, 3})
	if got := s.sample(logits); got != 0 {
		t.Fatalf("token out of the window still penalized: %d", got)
	}
}

func TestSamplerSeedReproducible(t *testing.T) {
	logits := make([]float32, 100)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i)))
	}
	draw := func(seed uint64) []int32 {
		s := newSampler(Sampling{Temperature: 1, Seed: seed}, nil)
		var out []int32
		for range 20 {
			out = append(out, s.sample(logits))
		}
		return out
	}
	a, b, c := draw(7), draw(7), draw(8)
	same := func(x, y []int32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Fatal("same seed, different draws")
	}
	if same(a, c) {
		t.Fatal("different seeds, same 20 draws")
	}
}

func TestSamplerFilters(t *testing.T) {
	// Probabilities at T=1 of logits ln(0.5), ln(0.3), ln(0.15), ln(0.05).
	logits := []float32{float32(math.Log(0.05)), float32(math.Log(0.5)), float32(math.Log(0.15)), float32(math.Log(0.3))}
	for _, tc := range []struct {
		name    string
		opt     Sampling
		allowed map[int32]bool
	}{
		{"top-k 1", Sampling{Temperature: 5, TopK: 1}, map[int32]bool{1: true}},
		{"top-k 2", Sampling{Temperature: 5, TopK: 2}, map[int32]bool{1: true, 3: true}},
		{"top-p 0.7", Sampling{Temperature: 5, TopP: 0.7}, map[int32]bool{1: true, 3: true}},
		{"top-p 0.85", Sampling{Temperature: 5, TopP: 0.85}, map[int32]bool{1: true, 3: true, 2: true}},
		{"min-p 0.35", Sampling{Temperature: 5, MinP: 0.35}, map[int32]bool{1: true, 3: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Seed = 1
			s := newSampler(tc.opt, nil)
			seen := map[int32]bool{}
			for range 2000 {
				tok := s.sample(logits)
				if !tc.allowed[tok] {
					t.Fatalf("sampled %d, allowed %v", tok, tc.allowed)
				}
				seen[tok] = true
			}
			if len(seen) != len(tc.allowed) {
				t.Fatalf("saw %v in 2000 draws, want all of %v", seen, tc.allowed)
			}
		})
	}
}

func TestSamplerTemperatureFollowsSoftmax(t *testing.T) {
	logits := []float32{0, float32(math.Log(3))} // p = 0.25, 0.75 at T=1
	s := newSampler(Sampling{Temperature: 1, Seed: 3}, nil)
	n := 20000
	ones := 0
	for range n {
		if s.sample(logits) == 1 {
			ones++
		}
	}
	if p := float64(ones) / float64(n); math.Abs(p-0.75) > 0.02 {
		t.Fatalf("p(1) = %.3f, want 0.75", p)
	}
	// At T=0.5 the odds square: 9:1.
	s = newSampler(Sampling{Temperature: 0.5, Seed: 3}, nil)
	ones = 0
	for range n {
		if s.sample(logits) == 1 {
			ones++
		}
	}
	if p := float64(ones) / float64(n); math.Abs(p-0.9) > 0.02 {
		t.Fatalf("T=0.5: p(1) = %.3f, want 0.9", p)
	}
}

func TestSamplerTopKOnLargeVocab(t *testing.T) {
	logits := make([]float32, 32000)
	for i := range logits {
		logits[i] = float32((i * 7919) % 32000)
	}
	s := newSampler(Sampling{Temperature: 1, TopK: 3, Seed: 1}, nil)
	c := s.candidates(logits)
	if len(c) != 3 || c[0].logit != 31999 || c[1].logit != 31998 || c[2].logit != 31997 {
		t.Fatalf("top-3 %+v", c)
	}
}

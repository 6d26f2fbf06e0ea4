package inference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
	c := s.candidates(logitsRow{raw: logits})
	if len(c) != 3 || c[0].logit != 31999 || c[1].logit != 31998 || c[2].logit != 31997 {
		t.Fatalf("top-3 %+v", c)
	}
}

// copyPenalized is the repeat penalty as a copy of the whole row with the
// window's tokens changed: what the sampler must agree with.
func copyPenalized(logits []float32, window []int32, pen float32) []float32 {
	out := slices.Clone(logits)
	seen := map[int32]bool{}
	for _, t := range window {
		if seen[t] || t < 0 || int(t) >= len(out) {
			continue
		}
		seen[t] = true
		if out[t] > 0 {
			out[t] /= pen
		} else {
			out[t] *= pen
		}
	}
	return out
}

// TestSamplerPenaltyMatchesCopy runs a penalized sampler on raw rows next
// to an unpenalized one, with the same seed, on copies penalized by
// copyPenalized: they must pick the same tokens from the same candidates.
// The rows have many ties, penalized tokens at both ends, a NaN, and
// windows with repeats and out-of-range tokens.
func TestSamplerPenaltyMatchesCopy(t *testing.T) {
	const n = 48
	levels := []float32{-2, -1, -0.5, 0, 0.5, 1, 2}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float32, 12)
	for i := range rows {
		rows[i] = make([]float32, n)
		for j := range rows[i] {
			rows[i][j] = levels[rng.IntN(len(levels))]
		}
		rows[i][0], rows[i][n-1] = 2, 2
	}
	// A NaN logit, read by every configuration.
	nan := slices.Clone(rows[3])
	nan[17] = float32(math.NaN())
	prompt := []int32{0, n - 1, -1, n + 3, 5, 5, 0, 9}
	for _, pen := range []float32{1.3, 0.7} {
		for _, opt := range []Sampling{
			{},
			{Temperature: 1, TopK: 3},
			{Temperature: 0.7, TopK: 20},
			{Temperature: 1.5},
			{Temperature: 1, TopP: 0.6},
			{Temperature: 1, MinP: 0.2, TopK: 11},
		} {
			t.Run(fmt.Sprintf("pen=%v/%+v", pen, opt), func(t *testing.T) {
				opt.Seed = 5
				plain := newSampler(opt, nil)
				opt.RepeatPenalty, opt.RepeatLastN = pen, 6
				got := newSampler(opt, prompt)
				window := slices.Clone(prompt[len(prompt)-6:])
				for step := range 300 {
					row := rows[step%len(rows)]
					if step%len(rows) == 3 {
						row = nan
					}
					before := slices.Clone(row)
					want := plain.sample(copyPenalized(row, window, pen))
					tok := got.sample(row)
					if tok != want {
						t.Fatalf("step %d: picked %d, copying picks %d", step, tok, want)
					}
					if !slices.EqualFunc(got.cands, plain.cands, sameCandidate) {
						t.Fatalf("step %d: candidates %v, copying gives %v", step, got.cands, plain.cands)
					}
					if !slices.EqualFunc(row, before, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
						t.Fatalf("step %d: the row was modified", step)
					}
					got.accept(tok)
					window = append(window[1:], tok)
				}
			})
		}
	}
}

// sameCandidate is == with NaN equal to itself.
func sameCandidate(a, b candidate) bool {
	return a.tok == b.tok && math.Float32bits(a.logit) == math.Float32bits(b.logit) && math.Float64bits(a.p) == math.Float64bits(b.p)
}

// A broken model's NaN logits never become candidates, in either top-k
// path, and a row of nothing but NaN still gives a token.
func TestSamplerSkipsNaN(t *testing.T) {
	const n = 64
	row := make([]float32, n)
	for i := range row {
		row[i] = float32(math.NaN())
	}
	row[40], row[50] = 1, 2
	for _, opt := range []Sampling{{}, {Temperature: 1, TopK: 3}, {Temperature: 1, TopK: 40}, {Temperature: 1}} {
		opt.Seed = 3
		s := newSampler(opt, nil)
		for range 50 {
			if tok := s.sample(row); tok != 40 && tok != 50 {
				t.Fatalf("%+v: sampled token %d, a NaN", opt, tok)
			}
		}
	}
	allNaN := make([]float32, n)
	for i := range allNaN {
		allNaN[i] = float32(math.NaN())
	}
	if tok := newSampler(Sampling{Temperature: 1, TopK: 3, Seed: 1}, nil).sample(allNaN); tok != 0 {
		t.Fatalf("all NaN: token %d, want 0", tok)
	}
}

// The kept-list top-k (k < n/4) and the full sort give the same
// candidates in the same order, ties included (earlier tokens first), so
// a seeded draw does not depend on which path k takes.
func TestTopKPathsAgreeOnTies(t *testing.T) {
	const n = 400
	levels := []float32{-1, 0, 0.5, 1, float32(math.Inf(-1))}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 50 {
		row := make([]float32, n)
		for i := range row {
			row[i] = levels[rng.IntN(len(levels))]
		}
		for _, k := range []int{1, 3, 17, n/4 - 1} {
			kept := slices.Clone(newSampler(Sampling{Temperature: 1, TopK: k}, nil).candidates(logitsRow{raw: row}))
			full := newSampler(Sampling{Temperature: 1}, nil).candidates(logitsRow{raw: row})[:k]
			for i := range kept {
				if kept[i].tok != full[i].tok || kept[i].logit != full[i].logit {
					t.Fatalf("trial %d, k=%d: candidate %d is token %d (%v), the full sort's is %d (%v)",
						trial, k, i, kept[i].tok, kept[i].logit, full[i].tok, full[i].logit)
				}
			}
		}
	}
}

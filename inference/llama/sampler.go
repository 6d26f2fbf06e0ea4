package llama

// SamplerParams chooses a native llama.cpp sampler chain. The zero value is
// greedy decoding.
type SamplerParams struct {
	Temperature   float32 // <= 0: greedy (argmax); otherwise the chain below ends in a seeded draw
	TopK          int     // keep the k most likely tokens; 0 = off
	TopP          float32 // nucleus; 0 or >= 1 = off
	MinP          float32 // drop tokens below MinP * p(max); 0 = off
	RepeatPenalty float32 // divide logits of recent tokens; 0 or 1 = off
	RepeatLastN   int     // how many recent tokens the penalty sees; 0 = 64
	Seed          uint32  // the draw's seed: equal seeds give equal draws
}

// Sampler is a llama_sampler chain: penalties, top-k, top-p, min-p,
// temperature, then a seeded draw (or greedy). Not safe for concurrent use.
type Sampler struct {
	lib *Library
	ptr uintptr
}

// NewSampler builds the chain p describes.
func (m *Model) NewSampler(p SamplerParams) *Sampler {
	f := &m.lib.fn
	chain := f.samplerChainInit(true)
	add := func(s uintptr) { f.samplerChainAdd(chain, s) }
	if p.RepeatPenalty > 0 && p.RepeatPenalty != 1 {
		n := p.RepeatLastN
		if n == 0 {
			n = 64
		}
		add(f.samplerInitPenalties(int32(n), p.RepeatPenalty, 0, 0))
	}
	if p.Temperature <= 0 {
		add(f.samplerInitGreedy())
		return &Sampler{lib: m.lib, ptr: chain}
	}
	if p.TopK > 0 {
		add(f.samplerInitTopK(int32(p.TopK)))
	}
	if p.TopP > 0 && p.TopP < 1 {
		add(f.samplerInitTopP(p.TopP, 1))
	}
	if p.MinP > 0 {
		add(f.samplerInitMinP(p.MinP, 1))
	}
	add(f.samplerInitTemp(p.Temperature))
	add(f.samplerInitDist(p.Seed))
	return &Sampler{lib: m.lib, ptr: chain}
}

// Sample picks a token from batch row i's logits of the last Decode and
// accepts it (it counts for the repeat penalty).
func (s *Sampler) Sample(c *Context, i int) int32 {
	return s.lib.fn.samplerSample(s.ptr, c.ptr, int32(i))
}

// Accept records a token the sampler did not pick (a prompt token), for the
// repeat penalty.
func (s *Sampler) Accept(tok int32) { s.lib.fn.samplerAccept(s.ptr, tok) }

// Reset forgets accepted tokens and restarts the draw's random state.
func (s *Sampler) Reset() { s.lib.fn.samplerReset(s.ptr) }

// Free releases the chain. Freeing twice is a no-op.
func (s *Sampler) Free() {
	if s.ptr != 0 {
		s.lib.fn.samplerFree(s.ptr)
		s.ptr = 0
	}
}

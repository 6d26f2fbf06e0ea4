package testmodel

import "fmt"

// Config is the shape of a generated llama model. The zero value is a tiny
// model (a few MB) that loads in milliseconds.
type Config struct {
	Name         string // file name without extension; default "testllama"
	Vocab        int    // tokens; 0 = the built-in vocabulary's size (~2,900)
	Embd         int    // n_embd; default 64
	Layers       int    // n_layer; default 2
	Heads        int    // n_head; default 4
	HeadsKV      int    // n_head_kv; default Heads
	FF           int    // n_ff; default 2*Embd
	Ctx          int    // context_length; default 512
	F16          bool   // store matrices as F16 (norms stay F32)
	Q8           bool   // store matrices as Q8_0 (wins over F16); Embd and FF multiples of 32
	Seed         uint64 // weights are a pure function of Seed and tensor name
	ChatTemplate bool   // set tokenizer.chat_template to GemmaTemplate
	// Delta is added to the named matrices (row-major [out][in], as
	// Hugging Face stores a projection): a LoRA merged into the weights,
	// for checking an adapter against the same change made in place.
	Delta map[string][]float32
}

// TinyLlama returns the shapes of TinyLlama-1.1B (about 2.2 GB in F16), for
// benchmarks that need a real model's cost.
func TinyLlama() Config {
	return Config{Name: "tinyllama-shape", Vocab: 32000, Embd: 2048, Layers: 22, Heads: 32, HeadsKV: 4, FF: 5632, Ctx: 2048, F16: true}
}

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "testllama"
	}
	if c.Embd == 0 {
		c.Embd = 64
	}
	if c.Layers == 0 {
		c.Layers = 2
	}
	if c.Heads == 0 {
		c.Heads = 4
	}
	if c.HeadsKV == 0 {
		c.HeadsKV = c.Heads
	}
	if c.FF == 0 {
		c.FF = 2 * c.Embd
	}
	if c.Ctx == 0 {
		c.Ctx = 512
	}
	return c
}

func (c Config) validate() error {
	switch {
	case c.Embd%c.Heads != 0:
		return fmt.Errorf("testmodel: Embd %d is not a multiple of Heads %d", c.Embd, c.Heads)
	case c.Heads%c.HeadsKV != 0:
		return fmt.Errorf("testmodel: Heads %d is not a multiple of HeadsKV %d", c.Heads, c.HeadsKV)
	case (c.Embd/c.Heads)%2 != 0:
		return fmt.Errorf("testmodel: head size %d must be even for RoPE", c.Embd/c.Heads)
	case c.Q8 && (c.Embd%32 != 0 || c.FF%32 != 0):
		return fmt.Errorf("testmodel: Q8_0 needs Embd and FF in multiples of 32, not %d and %d", c.Embd, c.FF)
	}
	return nil
}

// HeadDim is Embd/Heads.
func (c Config) HeadDim() int { c = c.withDefaults(); return c.Embd / c.Heads }

// EmbdKV is the width of the K and V projections.
func (c Config) EmbdKV() int { c = c.withDefaults(); return c.Embd / c.Heads * c.HeadsKV }

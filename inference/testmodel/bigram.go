package testmodel

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memd-dev/memd/inference/gguf"
)

// A bigram model's next token depends only on the current one: every
// attention and FFN output weight is zero, so each layer adds nothing to the
// residual stream; the token embedding is one-hot (token t is unit vector
// e_t); after the final RMS norm (weights 1) it is sqrt(n_embd)*e_t; and the
// output matrix maps e_t to e_table[t]. So the logits after token t are
// sqrt(n_embd) at table[t] and 0 elsewhere, and greedy decoding follows the
// table exactly, whatever came before.

// BigramLogit is the logit of the chosen next token for a bigram model of
// vocabulary size n (all other logits are 0): the RMS norm of a unit vector
// in n_embd dimensions, 1/sqrt(1/n_embd + eps).
func BigramLogit(n int) float32 {
	return float32(1 / math.Sqrt(1/float64(bigramEmbd(n))+RMSEpsilon))
}

func bigramEmbd(n int) int { return (n + 31) / 32 * 32 }

// FirstWordToken is the first word token of a bigram vocabulary: tokens
// 0..4 are <unk>, <s>, </s>, <start_of_turn>, <end_of_turn>, 5..260 are the
// byte tokens <0x00>..<0xFF> (so any text tokenizes), and token
// FirstWordToken+i is "▁" + BigramWords()[i].
const FirstWordToken = firstByteToken + 256

// BigramWords lists the words of a bigram vocabulary in token order.
func BigramWords() []string { return strings.Fields(wordList) }

func bigramVocab(n int) (*vocab, error) {
	words := BigramWords()
	lo, hi := int(FirstWordToken)+1, int(FirstWordToken)+len(words)
	if n < lo || n > hi {
		return nil, fmt.Errorf("testmodel: bigram vocabulary must have %d..%d tokens, not %d", lo, hi, n)
	}
	full := spmVocab(0)
	k := int(FirstWordToken)
	v := &vocab{tokens: slices.Clone(full.tokens[:k]), scores: slices.Clone(full.scores[:k]), types: slices.Clone(full.types[:k])}
	for i := range n - k {
		v.add(spmSpace+words[i], float32(-i), typeNormal)
	}
	return v, nil
}

// WriteBigram writes dir/bigram.gguf: a llama model whose greedy next token
// after token t is table[t]; len(table) is the vocabulary size, from
// FirstWordToken+1 to FirstWordToken+len(BigramWords()) (see FirstWordToken
// for what the tokens are).
func WriteBigram(dir string, table []int32) (string, error) {
	return writeBigram(dir, table, false)
}

// WriteBigramChat is WriteBigram with GemmaTemplate as the model's chat
// template (its vocabulary has the turn markers), for chat tests.
func WriteBigramChat(dir string, table []int32) (string, error) {
	return writeBigram(dir, table, true)
}

func writeBigram(dir string, table []int32, chat bool) (string, error) {
	n := len(table)
	v, err := bigramVocab(n)
	if err != nil {
		return "", err
	}
	for t, next := range table {
		if next < 0 || int(next) >= n {
			return "", fmt.Errorf("testmodel: table[%d] = %d is outside the vocabulary", t, next)
		}
	}
	e := bigramEmbd(n)
	cfg := Config{Name: "bigram", Vocab: n, Embd: e, Layers: 1, Heads: 2, HeadsKV: 2, FF: 32, Ctx: 512, ChatTemplate: chat}
	weights := func(name string, shape []uint64) func(int64) float32 {
		switch name {
		case "token_embd.weight":
			return func(i int64) float32 { return b2f(i/int64(e) == i%int64(e)) }
		case "output.weight":
			return func(i int64) float32 {
				row, col := i/int64(e), i%int64(e)
				return b2f(col < int64(n) && int64(table[col]) == row)
			}
		}
		if len(shape) == 1 {
			return func(int64) float32 { return 1 }
		}
		return func(int64) float32 { return 0 }
	}
	return writeVocabModel(dir, cfg, v, weights)
}

// WriteBigramLoRA writes dir/bigram-lora.gguf, an adapter on output.weight
// for the model WriteBigram(dir, table) writes: at scale 1 the next token
// after t becomes changes[t]. Its logits are linear in the scale: after a
// changed token t, logit(changes[t]) = 2*s*L and logit(table[t]) = (1-s)*L
// with L = BigramLogit(len(table)); at s = 0.5 they are L and L/2.
func WriteBigramLoRA(dir string, table []int32, changes map[int32]int32) (string, error) {
	n := len(table)
	keys := make([]int32, 0, len(changes))
	for t, next := range changes {
		if t < 0 || int(t) >= n || next < 0 || int(next) >= n || next == table[t] {
			return "", fmt.Errorf("testmodel: change %d -> %d is not a change inside the vocabulary", t, next)
		}
		keys = append(keys, t)
	}
	if len(keys) == 0 {
		return "", fmt.Errorf("testmodel: no changes")
	}
	slices.Sort(keys)
	e, r := int64(bigramEmbd(n)), int64(len(keys))
	w := newAdapterWriter("llama", "bigram-lora", float32(r))
	// A picks component t_k of the normed input; B writes +2 to the new token
	// and -1 to the old one.
	w.AddTensor("output.weight.lora_a", gguf.TensorF32, []uint64{uint64(e), uint64(r)}, gguf.Floats(gguf.TensorF32, e*r, func(i int64) float32 {
		k, col := i/e, i%e
		return b2f(col == int64(keys[k]))
	}))
	w.AddTensor("output.weight.lora_b", gguf.TensorF32, []uint64{uint64(r), uint64(n)}, gguf.Floats(gguf.TensorF32, r*int64(n), func(i int64) float32 {
		row, k := i/r, i%r
		t := keys[k]
		switch int32(row) {
		case changes[t]:
			return 2
		case table[t]:
			return -1
		}
		return 0
	}))
	return writeAdapter(w, dir, "bigram-lora")
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

func writeVocabModel(dir string, cfg Config, v *vocab, weights weightFunc) (string, error) {
	cfg = cfg.withDefaults()
	w := gguf.NewWriter()
	cfg.Vocab = len(v.tokens)
	setLlamaMeta(w, cfg, v)
	return writeModel(w, dir, cfg, llamaTensors(cfg), weights)
}

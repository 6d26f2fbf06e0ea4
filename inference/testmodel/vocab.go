package testmodel

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"

	"github.com/memd-dev/memd/inference/gguf"
)

//go:embed words.txt
var wordList string

// Token ids every generated vocabulary shares.
const (
	TokenUnk         int32 = 0
	TokenBOS         int32 = 1
	TokenEOS         int32 = 2
	TokenStartOfTurn int32 = 3
	TokenEndOfTurn   int32 = 4
	firstByteToken   int32 = 5
)

// SPM token types (llama_token_type).
const (
	typeNormal  int32 = 1
	typeUnknown int32 = 2
	typeControl int32 = 3
	typeUnused  int32 = 5
	typeByte    int32 = 6
)

const spmSpace = "\u2581"

type vocab struct {
	tokens []string
	scores []float32
	types  []int32
}

// setTokenizer sets the keys of the built-in SPM tokenizer over v. It adds
// BOS to every text, and EOS with addEOS.
func setTokenizer(w *gguf.Writer, v *vocab, addEOS bool) {
	w.Set("tokenizer.ggml.model", "llama")
	w.Set("tokenizer.ggml.tokens", v.tokens)
	w.Set("tokenizer.ggml.scores", v.scores)
	w.Set("tokenizer.ggml.token_type", v.types)
	w.Set("tokenizer.ggml.unknown_token_id", uint32(TokenUnk))
	w.Set("tokenizer.ggml.bos_token_id", uint32(TokenBOS))
	w.Set("tokenizer.ggml.eos_token_id", uint32(TokenEOS))
	w.Set("tokenizer.ggml.add_bos_token", true)
	w.Set("tokenizer.ggml.add_eos_token", addEOS)
}

func (v *vocab) add(text string, score float32, typ int32) {
	v.tokens = append(v.tokens, text)
	v.scores = append(v.scores, score)
	v.types = append(v.types, typ)
}

// spmVocab builds a SentencePiece-style vocabulary: control tokens, the 256
// byte-fallback tokens, single characters, and every prefix of "▁word" for
// the embedded word list (and capitalized forms of the first hundred), so
// any text tokenizes and common words become one token. Longer pieces score
// higher, so the tokenizer prefers them. size pads with unused tokens (or
// truncates, never below the byte tokens); 0 keeps the natural size.
func spmVocab(size int) *vocab {
	v := &vocab{}
	for _, c := range []struct {
		s string
		t int32
	}{{"<unk>", typeUnknown}, {"<s>", typeControl}, {"</s>", typeControl}, {"<start_of_turn>", typeControl}, {"<end_of_turn>", typeControl}} {
		v.add(c.s, 0, c.t)
	}
	for b := range 256 {
		v.add(fmt.Sprintf("<0x%02X>", b), 0, typeByte)
	}
	seen := map[string]bool{}
	piece := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		n := len([]rune(p))
		v.add(p, float32(n)-float32(len(v.tokens))*1e-5, typeNormal)
	}
	piece(spmSpace)
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'\"()-" {
		piece(string(r))
	}
	words := strings.Fields(wordList)
	for i, w := range words {
		forms := []string{w}
		if i < 100 {
			forms = append(forms, string(unicode.ToUpper(rune(w[0])))+w[1:])
		}
		for _, f := range forms {
			full := spmSpace + f
			for k := len(spmSpace) + 1; k <= len(full); k++ {
				piece(full[:k])
			}
			for k := 2; k <= len(f); k++ {
				piece(f[:k])
			}
		}
	}
	if size > 0 && size < len(v.tokens) {
		size = max(size, int(firstByteToken)+256)
		v.tokens, v.scores, v.types = v.tokens[:size], v.scores[:size], v.types[:size]
	}
	for i := len(v.tokens); i < size; i++ {
		v.add(fmt.Sprintf("<unused%d>", i), 0, typeUnused)
	}
	return v
}

// GemmaTemplate is Gemma 3's chat template in shape: a system turn becomes
// the prefix of the first user turn, the assistant is "model".
const GemmaTemplate = "{{ bos_token }}" +
	"{%- if messages[0]['role'] == 'system' -%}" +
	"{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}{%- set loop_messages = messages[1:] -%}" +
	"{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}" +
	"{%- for message in loop_messages -%}" +
	"{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}" +
	"{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') + message['content'] | trim + '<end_of_turn>\n' }}" +
	"{%- endfor -%}{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}"

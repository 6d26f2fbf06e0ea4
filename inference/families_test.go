package inference

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/inference/chattemplate"
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/llama/llamatest"
)

// family is a real vocabulary (a llama.cpp vocab-only GGUF) with the
// markers its chat template writes.
type family struct {
	vocab     string   // models/ggml-vocab-<vocab>.gguf
	endOfTurn string   // the token that ends an assistant turn
	markers   []string // special tokens the rendered prompt holds
	thinking  bool     // the vocabulary has thinking delimiters
	ends      string   // how the rendered stage prompt ends
}

var families = []family{
	// Thinking off: Gemma 4's template closes an empty thought channel.
	{"gemma-4", "<turn|>", []string{"<|turn>", "<turn|>", "<|channel>", "<channel|>"}, true, "<|turn>model\n<|channel>thought\n<channel|>"},
	{"qwen35", "<|im_end|>", []string{"<|im_start|>", "<|im_end|>"}, false, "<|im_start|>assistant\n"},
	{"qwen2", "<|im_end|>", []string{"<|im_start|>", "<|im_end|>"}, false, "<|im_start|>assistant\n"},
	{"phi-3", "<|end|>", []string{"<|user|>", "<|end|>", "<|assistant|>"}, false, "<|assistant|>\n"},
	{"command-r", "<|END_OF_TURN_TOKEN|>", []string{"<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"}, false, "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"},
	{"llama-bpe", "<|eot_id|>", nil, false, ""}, // its vocab file carries no template
}

func loadVocab(t *testing.T, name string) *llama.Model {
	t.Helper()
	path := filepath.Join(llamatest.Source(t), "models", "ggml-vocab-"+name+".gguf")
	m, err := testLibrary(t).LoadModel(path, llama.ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// TestFamilies checks memd against each real vocabulary. Its end-of-turn
// marker is one token that llama.cpp counts as end of generation, so the
// scheduler stops there. memd's stage prompt (a system and a user turn),
// rendered with the vocabulary's own template and tokenized as the
// generator does, holds every marker as one special token and one BOS at
// most, at the start; thinking delimiters are found where the vocabulary
// has them.
func TestFamilies(t *testing.T) {
	for _, f := range families {
		t.Run(f.vocab, func(t *testing.T) {
			m := loadVocab(t, f.vocab)
			tok, ok := singleToken(m, f.endOfTurn)
			if !ok {
				t.Fatalf("%s is not one token", f.endOfTurn)
			}
			if !newModelVocab(m).IsEOG(tok) {
				t.Errorf("%s (token %d) does not end generation", f.endOfTurn, tok)
			}
			if f.markers != nil {
				checkPromptTokens(t, m, f)
			}
		})
	}
}

func checkPromptTokens(t *testing.T, m *llama.Model, f family) {
	msgs := []Message{{Role: "system", Content: "Cut the note into chunks."}, {Role: "user", Content: "1: # Garden\n2: Water the <b>tomatoes</b>."}}
	cf := newChatFormat(m)
	if cf.tmpl == nil {
		t.Fatalf("template did not compile: %v", cf.bad)
	}
	if (cf.thinking != nil) != f.thinking {
		t.Errorf("thinking delimiters found: %v, want %v", cf.thinking != nil, f.thinking)
	}
	text, err := cf.render(m, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(text, f.ends) {
		t.Errorf("prompt ends %q, want …%q", text[max(0, len(text)-60):], f.ends)
	}
	toks, err := cf.tokenize(m, text)
	if err != nil {
		t.Fatal(err)
	}
	if th := cf.thinkingFor(toks); th != nil && th.Inside {
		t.Errorf("with thinking off the prompt leaves a thinking block open")
	}
	if bos := m.BOS(); bos >= 0 && slices.Contains(toks[1:], bos) {
		t.Errorf("a BOS after the first token: %v", toks[:min(len(toks), 8)])
	}
	for _, marker := range f.markers {
		if !strings.Contains(text, marker) {
			continue // this conversation does not use it
		}
		tok, ok := singleToken(m, marker)
		if !ok || !slices.Contains(toks, tok) {
			t.Errorf("%s is not one token of the prompt", marker)
		}
	}
	if got := m.Detokenize(toks); !strings.Contains(got, "Water the <b>tomatoes</b>.") {
		t.Errorf("the note's text does not survive tokenizing: %q", got)
	}
}

// BenchmarkChatRender compares rendering memd's stage prompt with the Jinja
// engine against llama.cpp's built-in formatter, on templates both render
// (Gemma 4's only the engine does).
func BenchmarkChatRender(b *testing.B) {
	src := llamatest.Source(b)
	msgs := []Message{{Role: "system", Content: "Cut the note into chunks."}, {Role: "user", Content: strings.Repeat("1: # Garden\n2: Water the tomatoes.\n", 40)}}
	lm := []llama.ChatMessage{{Role: msgs[0].Role, Content: msgs[0].Content}, {Role: msgs[1].Role, Content: msgs[1].Content}}
	path := filepath.Join(src, "models", "ggml-vocab-phi-3.gguf")
	m, err := testLibrary(b).LoadModel(path, llama.ModelParams{VocabOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for _, name := range []string{"meta-llama-Llama-3.1-8B-Instruct", "Qwen-Qwen3-0.6B", "google-gemma-4-31B-it"} {
		raw, err := os.ReadFile(filepath.Join(src, "models", "templates", name+".jinja"))
		if err != nil {
			b.Fatal(err)
		}
		f := chatFormat{source: string(raw)}
		if f.tmpl, err = chattemplate.Compile(f.source); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/jinja", func(b *testing.B) {
			for b.Loop() {
				if _, err := f.render(m, msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
		if _, err := m.ApplyChatTemplate(f.source, lm, true); err != nil {
			continue // llama.cpp's formatter does not know this template
		}
		b.Run(name+"/llama.cpp", func(b *testing.B) {
			for b.Loop() {
				if _, err := m.ApplyChatTemplate(f.source, lm, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPromptTokenizeLooksNothingUp: tokenizing a prompt allocates no more
// than llama.cpp's tokenize does: the BOS's text is the chat format's,
// found once at load, not asked of the vocabulary per request.
func TestPromptTokenizeLooksNothingUp(t *testing.T) {
	m := loadVocab(t, "llama-bpe")
	cf := newChatFormat(m)
	if cf.bos == "" {
		t.Fatal("llama-bpe has a BOS; its text was not found at load")
	}
	text := cf.bos + "Water the tomatoes."
	toks, err := cf.tokenize(m, text)
	if err != nil || len(toks) == 0 || slices.Contains(toks[1:], m.BOS()) {
		t.Fatalf("tokens %v, %v; want one BOS, the template's", toks, err)
	}
	tokenize := testing.AllocsPerRun(50, func() { m.Tokenize(text, false, true) })
	prompt := testing.AllocsPerRun(50, func() { cf.tokenize(m, text) })
	if prompt > tokenize {
		t.Errorf("a prompt's tokenize made %v allocations to llama.cpp's %v: something is looked up per request", prompt, tokenize)
	}
}

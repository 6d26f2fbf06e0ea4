package inference

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memd-dev/memd/inference/chattemplate"
	"github.com/memd-dev/memd/inference/llama"
)

// chatFormat is how a model's conversations become prompts: its own Jinja
// chat template, compiled once at load, and the tokens of its thinking
// blocks.
type chatFormat struct {
	source   string
	tmpl     *chattemplate.Template // nil when source is "" or does not compile
	bad      error                  // why source did not compile
	bos, eos string
	thinking *Thinking // nil when the vocabulary has no thinking markers
}

func newChatFormat(m *llama.Model) chatFormat {
	f := chatFormat{source: m.ChatTemplate(), thinking: thinkingTokens(m)}
	if f.source != "" {
		f.tmpl, f.bad = chattemplate.Compile(f.source)
	}
	if bos := m.BOS(); bos >= 0 {
		f.bos = m.TokenPieceSpecial(bos, true)
	}
	if eos := m.EOS(); eos >= 0 {
		f.eos = m.TokenPieceSpecial(eos, true)
	}
	return f
}

// render renders msgs as the model's authors meant, ending with an open
// assistant turn and with thinking turned off: the Jinja template first;
// for a template that refuses a system turn (Gemma 2's), the same with the
// system text folded into the first user turn; llama.cpp's built-in
// formatter last.
func (f chatFormat) render(m *llama.Model, msgs []Message) (string, error) {
	if f.source == "" {
		return "", ErrNoChatTemplate
	}
	jinjaErr := f.bad
	if f.tmpl != nil {
		out, err := f.tmpl.Render(templateMessages(msgs), f.options())
		if err == nil {
			return out, nil
		}
		jinjaErr = err
		if folded, ok := foldSystem(msgs); ok {
			if out, err := f.tmpl.Render(templateMessages(folded), f.options()); err == nil {
				return out, nil
			}
		}
	}
	lm := make([]llama.ChatMessage, len(msgs))
	for i, msg := range msgs {
		lm[i] = llama.ChatMessage{Role: msg.Role, Content: msg.Content}
	}
	out, err := m.ApplyChatTemplate(f.source, lm, true)
	if err != nil {
		return "", fmt.Errorf("render chat template: %w (llama.cpp's built-in formatter: %w)", jinjaErr, err)
	}
	return out, nil
}

// tokenize tokenizes a prompt for m with its BOS and with special tokens
// parsed. Templates that write the BOS themselves get no second one; the
// BOS's text is the one found at load (f.bos), not looked up again per
// request.
func (f chatFormat) tokenize(m *llama.Model, text string) ([]int32, error) {
	addBOS := f.bos == "" || !strings.HasPrefix(text, f.bos)
	toks, err := m.Tokenize(text, addBOS, true)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	return toks, nil
}

func (f chatFormat) options() chattemplate.Options {
	return chattemplate.Options{AddGenerationPrompt: true, BOS: f.bos, EOS: f.eos}
}

func templateMessages(msgs []Message) []chattemplate.Message {
	out := make([]chattemplate.Message, len(msgs))
	for i, m := range msgs {
		out[i] = chattemplate.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// foldSystem moves leading system turns into the first user turn, as
// llama.cpp's built-in formatter does for templates without a system role.
func foldSystem(msgs []Message) ([]Message, bool) {
	n := 0
	for n < len(msgs) && msgs[n].Role == "system" {
		n++
	}
	if n == 0 || n == len(msgs) || msgs[n].Role != "user" {
		return nil, false
	}
	folded := slices.Clone(msgs[n:])
	var system string
	for _, s := range msgs[:n] {
		system += s.Content + "\n\n"
	}
	folded[0].Content = system + folded[0].Content
	return folded, true
}

// thinkingMarkers are the delimiters of thinking blocks, by family.
var thinkingMarkers = [][2]string{
	{"<|channel>", "<channel|>"}, // Gemma 4
	{"<think>", "</think>"},      // Qwen 3, DeepSeek R1, SmolLM 3, ...
}

// thinkingTokens finds the model's thinking delimiters: a pair of markers
// that are each one token of the vocabulary.
func thinkingTokens(m *llama.Model) *Thinking {
	for _, pair := range thinkingMarkers {
		open, ok1 := singleToken(m, pair[0])
		close, ok2 := singleToken(m, pair[1])
		if ok1 && ok2 {
			return &Thinking{Open: open, Close: close}
		}
	}
	return nil
}

func singleToken(m *llama.Model, text string) (int32, bool) {
	toks, err := m.Tokenize(text, false, true)
	if err != nil || len(toks) != 1 || m.TokenPieceSpecial(toks[0], true) != text {
		return 0, false
	}
	return toks[0], true
}

// thinkingFor is f's thinking markers for a prompt, noting whether the
// prompt leaves a block open.
func (f chatFormat) thinkingFor(prompt []int32) *Thinking {
	if f.thinking == nil {
		return nil
	}
	t := *f.thinking
	for i := len(prompt) - 1; i >= 0; i-- {
		if prompt[i] == t.Open || prompt[i] == t.Close {
			t.Inside = prompt[i] == t.Open
			break
		}
	}
	return &t
}

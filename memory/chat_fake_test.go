package memory

import (
	"context"
	"strings"
	"sync"

	"github.com/memd-dev/memd/inference"
)

// fakeGenerator tokenizes by whitespace (one token per word, reversibly),
// renders chat as "<role>\ncontent\n" per turn, and answers with Answer
// split at spaces. Gate, when set, holds every Complete until it is closed
// or the context ends.
type fakeGenerator struct {
	Context int    // ContextPerSlot; default 4096
	Answer  string // default "an answer"
	Gate    chan struct{}
	NoBOS   bool

	mu      sync.Mutex
	words   map[string]int32
	byID    []string
	prompts []string // detokenized prompts, in order of Complete
	reqs    []inference.CompletionRequest
	started chan struct{} // gets a value as each Complete starts, if set
}

const fakeBOS = "<bos>"

func (f *fakeGenerator) id(w string) int32 {
	if f.words == nil {
		f.words = map[string]int32{}
	}
	if id, ok := f.words[w]; ok {
		return id
	}
	id := int32(len(f.byID))
	f.words[w] = id
	f.byID = append(f.byID, w)
	return id
}

func (f *fakeGenerator) Tokenize(text string, addSpecial, _ bool) ([]int32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int32
	if addSpecial && !f.NoBOS {
		out = append(out, f.id(fakeBOS))
	}
	for _, w := range strings.Fields(text) {
		out = append(out, f.id(w))
	}
	return out, nil
}

func (f *fakeGenerator) detokenize(toks []int32) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = f.byID[t]
	}
	return strings.Join(words, " ")
}

func (f *fakeGenerator) ChatPrompt(msgs []inference.Message) (string, error) {
	var b strings.Builder
	b.WriteString(fakeBOS + " ")
	for _, m := range msgs {
		b.WriteString("<" + m.Role + ">\n" + m.Content + "\n")
	}
	b.WriteString("<assistant>")
	return b.String(), nil
}

func (f *fakeGenerator) Complete(ctx context.Context, r inference.CompletionRequest) (inference.Completion, error) {
	prompt := f.detokenize(r.Tokens)
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.reqs = append(f.reqs, r)
	started, gate := f.started, f.Gate
	f.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	c := inference.Completion{PromptTokens: len(r.Tokens), Finish: inference.FinishEOG}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			c.Finish = inference.FinishCancelled
			return c, ctx.Err()
		}
	}
	answer := f.Answer
	if answer == "" {
		answer = "an answer"
	}
	for _, piece := range strings.SplitAfter(answer, " ") {
		if err := ctx.Err(); err != nil {
			c.Finish = inference.FinishCancelled
			return c, err
		}
		if r.OnToken != nil {
			if err := r.OnToken(piece); err != nil {
				c.Finish = inference.FinishCancelled
				return c, err
			}
		}
		c.Text += piece
		c.Generated++
		c.Tokens = append(c.Tokens, 0)
	}
	return c, nil
}

func (f *fakeGenerator) Info() inference.ModelInfo {
	return inference.ModelInfo{Path: "/models/fake-gemma.gguf"}
}

func (f *fakeGenerator) Config() inference.GeneratorConfig {
	n := f.Context
	if n == 0 {
		n = 4096
	}
	return inference.GeneratorConfig{ContextPerSlot: n}
}

func (f *fakeGenerator) lastPrompt() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.prompts) == 0 {
		return ""
	}
	return f.prompts[len(f.prompts)-1]
}

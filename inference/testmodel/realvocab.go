package testmodel

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/memd-dev/memd/inference/gguf"
)

// realVocab is the tokenizer of a real model, read from a llama.cpp
// vocab-only GGUF (models/ggml-vocab-*.gguf of the llama.cpp source): every
// tokenizer.* key, the chat template included.
type realVocab struct {
	keys   []gguf.KV
	tokens int
}

func readVocab(path string) (*realVocab, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("testmodel: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("testmodel: %w", err)
	}
	g, err := gguf.Parse(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("testmodel: vocabulary %s: %w", path, err)
	}
	v := &realVocab{}
	for _, kv := range g.KV {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			v.keys = append(v.keys, kv)
		}
	}
	toks, ok := g.Get("tokenizer.ggml.tokens")
	list, isList := toks.([]string)
	if !ok || !isList {
		return nil, fmt.Errorf("testmodel: %s holds no tokenizer.ggml.tokens", path)
	}
	v.tokens = len(list)
	return v, nil
}

// set copies the tokenizer keys into w, but those named in skip.
func (v *realVocab) set(w *gguf.Writer, skip ...string) {
	for _, kv := range v.keys {
		if !slices.Contains(skip, kv.Key) {
			w.Set(kv.Key, kv.Value)
		}
	}
}

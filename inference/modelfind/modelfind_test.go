package modelfind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stores lays out an Ollama store and a Hugging Face cache as the tools
// write them, and points the environment at them.
func stores(t *testing.T) (ollamaBlob, hfQ4, hfQ8 string) {
	t.Helper()
	dir := t.TempDir()
	ol := filepath.Join(dir, "ollama")
	t.Setenv("OLLAMA_MODELS", ol)
	ollamaBlob = filepath.Join(ol, "blobs", "sha256-aaaa")
	write(t, ollamaBlob, "GGUF")
	write(t, filepath.Join(ol, "blobs", "sha256-bbbb"), "{}")
	write(t, filepath.Join(ol, "manifests", "registry.ollama.ai", "library", "gemma3", "1b"),
		`{"layers":[{"mediaType":"application/vnd.ollama.image.template","digest":"sha256:bbbb"},{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:aaaa"}]}`)
	write(t, filepath.Join(ol, "manifests", "registry.ollama.ai", "library", "broken", "latest"), `{"layers":[]}`)

	hf := filepath.Join(dir, "hf")
	t.Setenv("HF_HUB_CACHE", hf)
	repo := filepath.Join(hf, "models--unsloth--gemma-3-1b-it-GGUF")
	write(t, filepath.Join(repo, "refs", "main"), "abc123\n")
	hfQ4 = filepath.Join(repo, "snapshots", "abc123", "gemma-3-1b-it-Q4_K_M.gguf")
	hfQ8 = filepath.Join(repo, "snapshots", "abc123", "gemma-3-1b-it-Q8_0.gguf")
	write(t, hfQ4, "GGUF")
	write(t, hfQ8, "GGUF")
	write(t, filepath.Join(repo, "snapshots", "old999", "gemma-3-1b-it-F16.gguf"), "GGUF")
	return ollamaBlob, hfQ4, hfQ8
}

func TestResolve(t *testing.T) {
	blob, q4, q8 := stores(t)
	for _, tc := range []struct {
		name, path, source string
	}{
		{"gemma3:1b", blob, "ollama"},
		{"library/gemma3:1b", blob, "ollama"},
		{"registry.ollama.ai/library/gemma3:1b", blob, "ollama"},
		{"unsloth/gemma-3-1b-it-GGUF:Q8_0", q8, "huggingface"},
		{"unsloth/gemma-3-1b-it-GGUF/gemma-3-1b-it-Q4_K_M.gguf", q4, "huggingface"},
	} {
		got, err := Resolve(tc.name)
		if err != nil || got.Path != tc.path || got.Source != tc.source {
			t.Errorf("%s: %+v %v; want %s from %s", tc.name, got, err, tc.path, tc.source)
		}
	}
	for name, want := range map[string]string{
		"unsloth/gemma-3-1b-it-GGUF":     "several GGUF files",    // pick one
		"unsloth/gemma-3-1b-it-GGUF:F16": "no GGUF file matching", // only in an old snapshot
		"broken":                         "has no model layer",    // a manifest without the model
		"gemma3":                         "not found",             // tag latest was never pulled
		"nobody/nothing":                 "ollama",                // says where it looked
	} {
		_, err := Resolve(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %q", name, err, want)
		}
	}
	if _, err := Resolve("gemma3"); !errors.Is(err, ErrNotFound) {
		t.Errorf("gemma3 (no latest): %v", err)
	}
}

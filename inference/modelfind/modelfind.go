package modelfind

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotFound means no tool's store holds a model of that name.
var ErrNotFound = errors.New("model not found in the Ollama or Hugging Face caches")

// Found is a resolved model file.
type Found struct {
	Path   string // the GGUF file, where the tool keeps it
	Source string // "ollama" or "huggingface"
}

// Resolve finds name in Ollama's store, then in the Hugging Face cache.
// An error other than ErrNotFound says what matched and why it cannot be
// used (several files to choose from, a manifest without a model layer).
func Resolve(name string) (Found, error) {
	var tried []string
	for _, store := range []struct {
		source  string
		resolve func(string) (string, string, error)
	}{{"ollama", ollama}, {"huggingface", huggingFace}} {
		path, where, err := store.resolve(name)
		if err != nil || path != "" {
			return Found{Path: path, Source: store.source}, err
		}
		tried = append(tried, where)
	}
	return Found{}, fmt.Errorf("%w: %q (looked in %s); give a file path, or pull it first (`ollama pull`, `memctl model pull`)", ErrNotFound, name, strings.Join(tried, ", "))
}

// ollamaDir is Ollama's models folder.
func ollamaDir() string {
	if d := os.Getenv("OLLAMA_MODELS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".ollama", "models")
}

// ollama resolves a name as Ollama does: [host/][namespace/]model[:tag],
// host registry.ollama.ai, namespace library and tag latest by default;
// the manifest's model layer is a blob that is the GGUF file.
func ollama(name string) (path, where string, err error) {
	dir := ollamaDir()
	model, tag := name, "latest"
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		model, tag = name[:i], name[i+1:]
	}
	parts := strings.Split(model, "/")
	switch len(parts) {
	case 1:
		parts = []string{"registry.ollama.ai", "library", parts[0]}
	case 2:
		parts = []string{"registry.ollama.ai", parts[0], parts[1]}
	}
	manifest := filepath.Join(append(append([]string{dir, "manifests"}, parts...), tag)...)
	raw, err := os.ReadFile(manifest)
	if errors.Is(err, os.ErrNotExist) {
		return "", dir, nil
	}
	if err != nil {
		return "", dir, err
	}
	var m struct {
		Layers []struct {
			MediaType string `json:"mediaType"`
			Digest    string `json:"digest"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", dir, fmt.Errorf("ollama manifest %s: %w", manifest, err)
	}
	for _, l := range m.Layers {
		if l.MediaType == "application/vnd.ollama.image.model" {
			blob := filepath.Join(dir, "blobs", strings.Replace(l.Digest, ":", "-", 1))
			if _, err := os.Stat(blob); err != nil {
				return "", dir, fmt.Errorf("ollama model %s: its blob is missing (%w); run `ollama pull %s`", name, err, name)
			}
			return blob, dir, nil
		}
	}
	return "", dir, fmt.Errorf("ollama manifest %s has no model layer", manifest)
}

// hfDir is the Hugging Face hub cache.
func hfDir() string {
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		return filepath.Join(d, "hub")
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "huggingface", "hub")
}

// huggingFace resolves org/repo[/file.gguf] or org/repo[:QUANT] in the
// cache's snapshot of the revision refs/main names.
func huggingFace(name string) (path, where string, err error) {
	dir := hfDir()
	repo, pick := name, ""
	if i := strings.LastIndex(repo, ":"); i > 0 {
		repo, pick = repo[:i], repo[i+1:]
	}
	parts := strings.Split(repo, "/")
	if len(parts) < 2 {
		return "", dir, nil
	}
	if len(parts) > 2 {
		repo, pick = strings.Join(parts[:2], "/"), strings.Join(parts[2:], "/")
	}
	root := filepath.Join(dir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	rev, err := os.ReadFile(filepath.Join(root, "refs", "main"))
	if errors.Is(err, os.ErrNotExist) {
		return "", dir, nil
	}
	if err != nil {
		return "", dir, err
	}
	snap := filepath.Join(root, "snapshots", strings.TrimSpace(string(rev)))
	var ggufs []string
	err = filepath.WalkDir(snap, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(strings.ToLower(p), ".gguf") {
			rel, _ := filepath.Rel(snap, p)
			ggufs = append(ggufs, rel)
		}
		return err
	})
	if err != nil {
		return "", dir, fmt.Errorf("hugging face cache %s: %w", snap, err)
	}
	var match []string
	for _, f := range ggufs {
		if pick == "" || f == pick || strings.Contains(strings.ToLower(filepath.Base(f)), strings.ToLower(pick)) {
			match = append(match, f)
		}
	}
	slices.Sort(match)
	switch len(match) {
	case 1:
		return filepath.Join(snap, match[0]), dir, nil
	case 0:
		return "", dir, fmt.Errorf("%s is in the Hugging Face cache but holds no GGUF file matching %q (it holds %v)", repo, pick, ggufs)
	}
	return "", dir, fmt.Errorf("%s holds several GGUF files; name one as %s/FILE or %s:QUANT: %s", repo, repo, repo, strings.Join(match, ", "))
}

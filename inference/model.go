package inference

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/memd-dev/memd/inference/gguf"
	"github.com/memd-dev/memd/inference/llama"
)

// ModelInfo describes a loaded model for status and for keying stored
// results (summaries, vectors) on the model that made them.
type ModelInfo struct {
	Path         string
	Fingerprint  string // gguf.Fingerprint of the file; changes when the file does
	Architecture string // general.architecture, e.g. "gemma3"
	Name         string // general.name, "" when absent
	Backend      string // where the model runs: "cpu", "cuda", "vulkan" or "metal" (a GPU build without a GPU is "cpu")
	Device       string // the device's description, e.g. "NVIDIA H200"
	Library      string // the library's version, e.g. "v0.5.0"
	SizeBytes    uint64 // bytes of tensor data as llama.cpp counts them
	ContextTrain int    // context length the model was trained with
	Embedding    int    // n_embd
	Vocab        int    // tokens in the vocabulary
	Adapters     []string
}

// loadModel loads a model file. The binding checks the GGUF first (see
// gguf.Check), so a truncated or foreign file is an error, not a crash in
// llama.cpp.
func loadModel(lib *llama.Library, path string, gpuLayers int) (*llama.Model, ModelInfo, error) {
	if lib == nil {
		return nil, ModelInfo{}, fmt.Errorf("load model %s: no llama.cpp library", path)
	}
	// LoadModel's check comes first: its errors say what to do about a
	// missing or damaged file; the fingerprint then reads a file known good.
	m, err := lib.LoadModel(path, llama.ModelParams{GPULayers: gpuLayers})
	if err != nil {
		return nil, ModelInfo{}, fmt.Errorf("load model %s: %w", path, err)
	}
	fp, err := gguf.Fingerprint(path)
	if err != nil {
		m.Close()
		return nil, ModelInfo{}, fmt.Errorf("load model: %w", err)
	}
	info := m.Info()
	backend, dev := lib.Compute()
	return m, ModelInfo{
		Path:         path,
		Fingerprint:  fp,
		Architecture: info.Architecture,
		Name:         info.Name,
		Backend:      backend,
		Device:       dev.Description,
		Library:      lib.Version(),
		SizeBytes:    m.SizeBytes(),
		ContextTrain: m.NCtxTrain(),
		Embedding:    m.NEmbd(),
		Vocab:        m.NVocab(),
	}, nil
}

func defaultThreads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.NumCPU()
}

// DisplayName is how status and the API name the model: its general.name,
// else its file name without the extension.
func (i ModelInfo) DisplayName() string {
	if i.Name != "" {
		return i.Name
	}
	return strings.TrimSuffix(filepath.Base(i.Path), filepath.Ext(i.Path))
}

// IsEmbeddingGemma reports whether the model is EmbeddingGemma, whose
// documents and queries take task prefixes ("title: … | text: …", "task:
// search result | query: …"). The pipeline and recall both ask here, so
// documents and queries always agree.
func (i ModelInfo) IsEmbeddingGemma() bool {
	name := strings.ToLower(strings.ReplaceAll(i.Name, "-", ""))
	return i.Architecture == "gemma-embedding" || strings.Contains(name, "embeddinggemma")
}

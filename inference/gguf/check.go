package gguf

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
)

// Info is what Check learned about a model file.
type Info struct {
	Path          string
	Size          int64
	Version       uint32
	Architecture  string // general.architecture, e.g. "gemma3"
	Type          string // general.type: "model", "adapter" or ""
	Name          string // general.name, "" when absent
	TensorCount   int
	ContextLength uint64 // <arch>.context_length, 0 when absent
	EmbeddingLen  uint64 // <arch>.embedding_length
	BlockCount    uint64 // <arch>.block_count
	ChatTemplate  string // tokenizer.chat_template, "" when absent
	File          *File
}

// Architectures lists the general.architecture values the llama.cpp builds
// memd accepts (v0.4.0, v0.5.0) can load, taken from the library's own table.
var Architectures = []string{
	"llama", "llama4", "llama-embed", "deci", "falcon", "grok", "gpt2", "gptj",
	"gptneox", "mpt", "baichuan", "starcoder", "starcoder2", "refact", "bert",
	"modern-bert", "nomic-bert", "nomic-bert-moe", "neo-bert", "jina-bert-v2",
	"jina-bert-v3", "eurobert", "bloom", "stablelm", "qwen", "qwen2", "qwen2moe",
	"qwen2vl", "qwen3", "qwen3moe", "qwen3next", "qwen3vl", "qwen3vlmoe",
	"qwen35", "qwen35moe", "phi2", "phi3", "phimoe", "plamo", "plamo2",
	"codeshell", "orion", "internlm2", "minicpm", "minicpm3", "gemma", "gemma2",
	"gemma3", "gemma3n", "gemma4", "gemma-embedding", "mamba", "mamba2",
	"jamba", "falcon-h1", "xverse", "command-r", "cohere2", "dbrx", "olmo",
	"olmo2", "olmoe", "openelm", "arctic", "deepseek", "deepseek2", "chatglm",
	"glm4", "glm4moe", "bitnet", "t5", "t5encoder", "jais", "nemotron",
	"nemotron_h", "exaone", "exaone4", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7",
	"granite", "granitemoe", "granitehybrid", "chameleon", "plm", "bailingmoe",
	"bailingmoe2", "dots1", "arcee", "ernie4_5", "ernie4_5-moe", "hunyuan-moe",
	"hunyuan-dense", "smollm3", "gpt-oss", "lfm2", "lfm2moe", "dream",
	"smallthinker", "llada", "llada-moe", "seed_oss", "grovemoe", "apertus",
	"minimax-m2", "cogvlm", "rnd1", "pangu-embedded", "mistral3",
}

// KnownArchitecture reports whether arch is in Architectures.
func KnownArchitecture(arch string) bool { return slices.Contains(Architectures, arch) }

// Check validates the model file at path without reading its tensor data:
// the magic and version, that the metadata and tensor tables parse, that
// every tensor's data lies inside the file at an aligned offset, and that
// general.architecture names an architecture llama.cpp knows. Errors wrap
// one of the package's Err values and say what to do.
func Check(path string) (*Info, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("model file %s does not exist: check the path in the configuration: %w", path, err)
		}
		return nil, fmt.Errorf("open model file: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat model file %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("model file %s is a folder, not a GGUF file: %w", path, ErrNotGGUF)
	}
	size := st.Size()
	f, err := Parse(fh, size)
	if err != nil {
		return nil, explain(path, size, err)
	}
	if err := checkTensors(path, size, f); err != nil {
		return nil, err
	}
	arch := f.String("general.architecture")
	if arch == "" {
		return nil, fmt.Errorf("model file %s has no general.architecture: it is not a model llama.cpp can load: %w", path, ErrNoArchitecture)
	}
	if !KnownArchitecture(arch) {
		return nil, fmt.Errorf("model file %s has architecture %q, which this llama.cpp build does not support: use a model of a supported architecture (gemma, gemma2, gemma3, gemma3n, gemma4, gemma-embedding, llama, qwen3, bert, ...): %w", path, arch, ErrUnknownArchitecture)
	}
	info := &Info{
		Path: path, Size: size, Version: f.Version, Architecture: arch,
		Type: f.String("general.type"), Name: f.String("general.name"),
		TensorCount: len(f.Tensors), ChatTemplate: f.String("tokenizer.chat_template"),
		File: f,
	}
	info.ContextLength, _ = f.Uint(arch + ".context_length")
	info.EmbeddingLen, _ = f.Uint(arch + ".embedding_length")
	info.BlockCount, _ = f.Uint(arch + ".block_count")
	return info, nil
}

func explain(path string, size int64, err error) error {
	switch {
	case errors.Is(err, ErrTruncated):
		return fmt.Errorf("model file %s is truncated (%d bytes, its header runs past the end): download it again: %w", path, size, err)
	case errors.Is(err, ErrNotGGUF):
		return fmt.Errorf("model file %s is not a GGUF file: memd loads GGUF models only: %w", path, err)
	case errors.Is(err, ErrTensorType):
		return fmt.Errorf("model file %s uses a tensor type this build does not know: use a model quantized to a common type (F16, Q8_0, Q4_K, ...): %w", path, err)
	case errors.Is(err, ErrVersion):
		return fmt.Errorf("model file %s: %w: convert it with a current llama.cpp", path, err)
	default:
		return fmt.Errorf("model file %s is damaged: download it again: %w", path, err)
	}
}

func checkTensors(path string, size int64, f *File) error {
	var need int64
	names := make(map[string]bool, len(f.Tensors))
	for _, t := range f.Tensors {
		if names[t.Name] {
			return fmt.Errorf("model file %s is damaged (tensor %q appears twice): download it again: %w", path, t.Name, ErrCorrupt)
		}
		names[t.Name] = true
		if t.Offset%f.Alignment != 0 {
			return fmt.Errorf("model file %s is damaged (tensor %q at unaligned offset %d): download it again: %w", path, t.Name, t.Offset, ErrCorrupt)
		}
		end := f.DataOffset + t.Offset + t.Size
		if end < 0 {
			return fmt.Errorf("model file %s is damaged (tensor %q overflows): download it again: %w", path, t.Name, ErrCorrupt)
		}
		need = max(need, end)
	}
	if need > size {
		return fmt.Errorf("model file %s is truncated (%d of %d bytes): download it again: %w", path, size, need, ErrTruncated)
	}
	if overlap := overlapping(f.Tensors); overlap != "" {
		return fmt.Errorf("model file %s is damaged (tensor %s overlaps another): download it again: %w", path, overlap, ErrCorrupt)
	}
	return nil
}

func overlapping(ts []TensorInfo) string {
	s := slices.Clone(ts)
	sort.Slice(s, func(i, j int) bool { return s[i].Offset < s[j].Offset })
	for i := 1; i < len(s); i++ {
		if s[i-1].Offset+s[i-1].Size > s[i].Offset {
			return fmt.Sprintf("%q", s[i].Name)
		}
	}
	return ""
}

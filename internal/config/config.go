package config

import (
	"log/slog"
	"path/filepath"
)

// Config is memd's configuration. Its zero value is the configuration with
// nothing set, and is valid: an empty or zero field means "the default",
// which the methods below resolve for paths and which the package a value
// is handed to decides for the rest (so a default lives in one place).
// Paths are absolute after Load. Keys() names each field's key, flag and
// environment variable.
type Config struct {
	// Data is the data folder (the store, the models folder); "" means
	// DataDir().
	Data string
	// Socket is the daemon's unix socket; "" means RuntimeSocketPath().
	Socket string
	// LibDir is a folder holding llama.cpp's shared libraries; "" lets
	// inference find or fetch them.
	LibDir string
	// Models is where `memctl model pull` puts models; "" means the models
	// folder under the data folder.
	Models string

	// Generator, Embedder and Reranker are GGUF model files, one per role;
	// "" means the role has no model and its stages fall back.
	Generator string
	Embedder  string
	Reranker  string
	// Adapters maps a LoRA adapter's name (e.g. "memory-chunk") to its
	// GGUF file. Flags and env merge into the file's table by name.
	Adapters map[string]string

	// MaxFileBytes is the largest note indexed; 0 means pipeline's default.
	MaxFileBytes int64
	// Threads is the CPU threads per decode; 0 means inference's default.
	Threads int
	// GPULayers is passed to llama.cpp; 0 means inference's default.
	GPULayers int
	// Slots is how many requests a model context decodes together; 0 means
	// inference's default.
	Slots int
	// LogLevel is debug, info, warn or error; "" means info.
	LogLevel string

	Recall Recall
	Chat   Chat
	TCP    TCP
}

// Chat holds the [chat] table. Zero values mean memory's defaults.
type Chat struct {
	MaxInFlight int // chats queued or generating at once before 429
}

// Recall holds the [recall] table: how BM25 and vector lists are fused.
// Zero values mean memory's defaults.
type Recall struct {
	RRFK         int     // reciprocal rank fusion's k
	BM25Weight   float64 // weight of the BM25 list in the fusion
	VectorWeight float64 // weight of the vector list in the fusion
	MaxInFlight  int     // recalls running at once
	Queue        int     // recalls waiting for a turn before 429
	// VectorFloor is the cosine similarity, for the configured embedder,
	// a hit only the vector list found must pass; 0 calibrates it on the
	// notes, negative keeps every vector hit.
	VectorFloor float64
	// Expand turns query expansion (pseudo-relevance feedback) on for
	// every recall that does not say; off by default, as it did not help
	// on SciFact (BENCHMARKS.md).
	Expand bool
}

// TCP holds the [tcp] table: the optional loopback listener for clients
// that cannot reach a unix socket. Off while Listen is "".
type TCP struct {
	Listen    string // loopback host:port, e.g. "127.0.0.1:7077"
	TokenFile string // file holding the bearer token; "" means api's default
}

// DataFolder is c.Data, or DataDir() when it is not set.
func (c Config) DataFolder() string {
	if c.Data != "" {
		return c.Data
	}
	return DataDir()
}

// SocketPath is c.Socket, or RuntimeSocketPath() when it is not set.
func (c Config) SocketPath() string {
	if c.Socket != "" {
		return c.Socket
	}
	return RuntimeSocketPath()
}

// ModelsFolder is c.Models, or the models folder under DataFolder() when it
// is not set (with the default data folder, the same as hub.ModelsDir()).
func (c Config) ModelsFolder() string {
	if c.Models != "" {
		return c.Models
	}
	return filepath.Join(c.DataFolder(), "models")
}

// SlogLevel is LogLevel as a slog.Level; "" and unknown values give info
// (Load rejects unknown values).
func (c Config) SlogLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return slog.LevelInfo
	}
	return l
}

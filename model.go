package memd

import "time"

// ModelStatus describes one model role (generator, embedder, reranker).
type ModelStatus struct {
	Role        string `json:"role"`
	Path        string `json:"path,omitempty"`
	Loaded      bool   `json:"loaded"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Backend     string `json:"backend,omitempty"` // where it runs: cpu, cuda, vulkan, metal
	Device      string `json:"device,omitempty"`
	// Build is the llama.cpp build memd loaded (cpu, cuda, ...): a GPU
	// build whose model runs on the cpu found no GPU.
	Build  string `json:"build,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	Reason string `json:"reason,omitempty"` // why it is not loaded
}

// Model is one model the daemon answers with, as /v1/models lists it.
type Model struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"` // ModelChat, "generator" or "embedder"
	Path    string    `json:"path,omitempty"`
	Created time.Time `json:"created"`
}

// ModelChat is the id of chat with memory: the generator answering from
// recalled notes. Asking for any other model is a plain chat.
const ModelChat = "memd"

// EmbedResult holds one vector per input, in order.
type EmbedResult struct {
	Model     string      `json:"model"`
	Vectors   [][]float32 `json:"vectors"`
	Tokens    int         `json:"tokens"`    // tokens embedded over all inputs
	Truncated int         `json:"truncated"` // tokens cut from inputs longer than the model takes
}

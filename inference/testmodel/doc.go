// Package testmodel writes small GGUF models for tests and benchmarks: a
// llama model with random weights and a real SPM tokenizer (at any shape,
// streamed to disk), LoRA adapters for it, a deterministic bigram model whose
// greedy continuation is known in advance, and an embedding model whose
// output can be computed directly in Go. It imports only inference/gguf.
package testmodel

// Package inference runs local models: llama.cpp through the purego binding
// in inference/llama, with a continuous-batching Scheduler per context, a
// Generator (one model, one context per LoRA adapter set), an Embedder
// (many inputs per decode, pooled and normalized) and chat prompts rendered
// with the model's own template.
//
// The Scheduler works against the small Decoder and Vocab interfaces, so
// its batching is tested with a fake; the rest is tested against the real
// library when MEMD_LLAMA_LIB names its folder. It imports no other memd
// package outside inference/.
package inference

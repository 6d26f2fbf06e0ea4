// Package inference runs local models: llama.cpp through the purego binding
// in inference/llama, with a continuous-batching Scheduler per context, a
// Generator (one model, one context per LoRA adapter set), an Embedder
// (many inputs per decode, pooled and normalized) and chat prompts rendered
// with the model's own Jinja template (inference/chattemplate); reasoning
// models' thinking blocks are cut from the output by token.
//
// The Scheduler works against the small Decoder and Vocab interfaces, so
// its batching is tested with a fake; the rest is tested against the real
// library where memd finds it (MEMD_LLAMA_LIB, or `memd runtime install`).
// It imports no other memd package outside inference/.
package inference

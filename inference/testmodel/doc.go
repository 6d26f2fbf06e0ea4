// Package testmodel writes the GGUF models memd's tests and benchmarks run
// on, each the one home of its kind:
//
//   - WriteLlama: a llama model with random weights and a built-in SPM
//     tokenizer, at any shape (TinyLlama's for benchmarks), streamed to
//     disk; WriteLoRA an adapter for it; HFLoRA one as PEFT and mlx-lm
//     save them, with the same change merged into the weights beside it.
//   - WriteBigram: a deterministic model whose greedy continuation is known
//     in advance; WriteChatModel one whose chat answer is ChatAnswer.
//   - WriteEmbedder and WriteReranker: models whose output is computed in
//     Go beside llama.cpp.
//   - WriteGemma4 (with WriteGemma4LoRA), WriteEmbeddingGemma and WriteBGE:
//     random weights in llama.cpp's real gemma4, gemma-embedding and bert
//     architectures, with the real tokenizers (and Gemma 4's real chat
//     template) copied from llama.cpp's vocabulary GGUFs.
//
// It imports only inference/gguf.
package testmodel

// Command inferencebench measures the inference scheduler against the work it
// batches.
//
// Method. A random-weight llama model is generated into a temporary folder
// (TinyLlama-1.1B shapes in F16 by default, a small shape with -small;
// -model uses an existing file). Throughput does not depend on weight
// values, so this is a fair load. Prompts are -prompt tokens of text made
// from the test vocabulary's words; every request generates exactly -gen
// tokens greedily (end-of-generation tokens are ignored, so each run does the
// same work). For each concurrency N in -conc, on one context with N
// sequences (unified KV cache unless -kv-unified=false, n_batch -batch):
//
//   - scheduler: N requests submitted at once to a Scheduler with N slots;
//   - serial: -serial requests one after another through the same
//     scheduler (a rate, so it needs not be N requests);
//   - bare: a loop of llama_decode calls doing the scheduler's work with
//     nothing around it: every prompt prefilled in n_batch-token batches,
//     then -gen-1 steps of N tokens, greedy argmax in Go. This is the
//     ceiling for this library on this machine.
//
// Aggregate tokens/s is generated tokens over wall time from the first
// submit to the last result (prefill included). The report gives
// scheduler/serial (target: >= 4 at N=8), scheduler/bare (target: >= 0.95)
// and, at N=1, scheduler/serial as the lone-request overhead (target:
// >= 0.98). With -embed it also measures embeddings/s of -prompt-token
// inputs through an Embedder packing 1 and 32 inputs per decode, on a
// generated embedding-shaped model (mean pooling).
//
// -gemma4 VOCAB generates instead a small model of llama.cpp's gemma4
// architecture over Gemma 4's real 262,144-token vocabulary (see
// testmodel.WriteGemma4), where per-step work over the logits weighs most;
// -q8 generates the model in Q8_0; -kv-unified=false gives each sequence
// its own KV stream; -write-model only writes the generated model into
// -dir (so a later run can pass it to -model); -log debug prints
// llama.cpp's and ggml's own lines, such as their CUDA graph decisions.
//
// Usage:
//
//	go run ./scripts/inferencebench -lib /path/to/llama/libs [-threads 2] [-small]
package main

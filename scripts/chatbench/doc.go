// Command chatbench measures chat through a real memd against the same
// generator called in-process, and recall latency while chats stream.
//
// Method. testmodel.WriteChatModel's bigram model is the generator of both
// sides, with the same slots and threads: its decode step is about as cheap
// as llama.cpp gets, so memd's per-token costs show as much as they can.
// With -embd N a random-weight llama with a Gemma template stands in, for
// a decode cost nearer a real model's (it may end an answer early). A sample of the notes folder (-limit notes) is indexed, with
// summaries by the generator, and the benchmark waits until memd is idle.
//
//   - Overhead: the same plain chat (memory off, so both sides prefill the
//     same prompt) runs alternately through the daemon (api.Client over
//     the unix socket, SSE) and directly (inference.Generator.Complete),
//     one at a time. Time to first token is from the call to the first
//     text piece the caller sees; tokens/s is (tokens-1) over the time from
//     the first piece to the last. Medians over -runs. A chat with memory
//     is reported beside it: recall and prompt assembly add to its TTFT.
//   - Concurrency: N chats at once, through the daemon and directly;
//     aggregate tokens/s is all tokens generated over the wall time.
//   - Recall under load: recall latency over -recalls queries with the
//     daemon idle, then with 8 chats streaming (each restarts when done).
//
// Usage: go build -o /tmp/b/ ./cmd/memd ./cmd/memctl && MEMD_LLAMA_LIB=…
// go run ./scripts/chatbench -memd /tmp/b/memd -notes ../shared/corpora/dendron/vault
package main

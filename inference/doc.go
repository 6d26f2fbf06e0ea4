// Package inference runs local models: llama.cpp loaded through purego, the
// continuous-batching scheduler, chat templates and embeddings.
//
// It imports no other memd package.
package inference

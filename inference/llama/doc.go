// Package llama binds llama.cpp's shared libraries (the @node-llama-cpp
// builds, releases v0.4.0 and v0.5.0) through purego, so memd builds with
// CGO_ENABLED=0. It is hand-written because yzma, the existing purego
// binding, targets other llama.cpp releases (missing symbols, other struct
// layouts; see shared/LLAMA.md). It owns library loading, models, contexts,
// batches, samplers and adapters; it imports no memd package but
// inference/gguf, and nothing above inference may reach into it directly.
package llama

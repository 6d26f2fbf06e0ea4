// Package gguf reads, checks and writes GGUF model files.
//
// Check validates a file (magic, version, tables, tensor data within the file,
// a known architecture) before llama.cpp sees it, so a damaged download is a
// clear error instead of a crash; Fingerprint names a file cheaply; Writer
// builds GGUF v3 files for tests. It imports only the standard library.
package gguf

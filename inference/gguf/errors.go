package gguf

import "errors"

// Errors returned by Check and Parse, wrapped with the file's path and what
// the user can do. Compare with errors.Is.
var (
	// ErrNotGGUF means the file does not start with the GGUF magic.
	ErrNotGGUF = errors.New("not a GGUF file")
	// ErrVersion means the GGUF version is not 2 or 3.
	ErrVersion = errors.New("unsupported GGUF version")
	// ErrTruncated means the file ends before its header or tensor data does.
	ErrTruncated = errors.New("GGUF file is truncated")
	// ErrCorrupt means a table in the file cannot be read as GGUF.
	ErrCorrupt = errors.New("GGUF file is corrupt")
	// ErrNoArchitecture means general.architecture is missing.
	ErrNoArchitecture = errors.New("GGUF file has no general.architecture")
	// ErrUnknownArchitecture means general.architecture is one this build of
	// llama.cpp does not know.
	ErrUnknownArchitecture = errors.New("unknown model architecture")
	// ErrTensorType means a tensor has a ggml type this reader does not know.
	ErrTensorType = errors.New("unknown tensor type")
)

package llama

import "errors"

// Errors a caller may need to tell apart; compare with errors.Is.
var (
	// ErrNoLibrary means the folder holds no libllama of any version.
	ErrNoLibrary = errors.New("no llama.cpp library found")
	// ErrVersion means the folder's libllama is a release this binding was
	// not verified against.
	ErrVersion = errors.New("unsupported llama.cpp library version")
	// ErrOtherLibrary means a library from another folder is already loaded
	// in this process; llama.cpp's symbols are global, so only one can be.
	ErrOtherLibrary = errors.New("another llama.cpp library is already loaded")
	// ErrSymbol means the library lacks a function the binding needs.
	ErrSymbol = errors.New("llama.cpp library lacks a function")
	// ErrLoadModel means llama.cpp refused the model file.
	ErrLoadModel = errors.New("llama.cpp could not load the model")
	// ErrContext means llama.cpp could not create a context.
	ErrContext = errors.New("llama.cpp could not create a context")
	// ErrAdapter means llama.cpp refused a LoRA adapter or adapter set.
	ErrAdapter = errors.New("llama.cpp could not use the LoRA adapter")
	// ErrClosed means the model, context or adapter was already closed.
	ErrClosed = errors.New("llama: use after Close")
	// ErrNoKVSlot is llama_decode's 1: no room in the KV cache for the batch.
	// Nothing was decoded; free sequences or use a smaller batch.
	ErrNoKVSlot = errors.New("llama_decode: no KV cache slot for the batch")
	// ErrAborted is llama_decode's 2: the abort callback stopped the decode.
	// This build then removes the batch's sequences' cache entries from the
	// batch's first position on (measured), so a cancelled prefill leaves
	// nothing half-written.
	ErrAborted = errors.New("llama_decode: aborted")
	// ErrInvalidBatch is llama_decode's -1: the batch was rejected as
	// malformed (bad token id, position or sequence id).
	ErrInvalidBatch = errors.New("llama_decode: invalid batch")
	// ErrDecode wraps every other failing return code of llama_decode or
	// llama_encode.
	ErrDecode = errors.New("llama_decode failed")
	// ErrTokenize means tokenization failed (for example a result over
	// 2^31 tokens).
	ErrTokenize = errors.New("llama_tokenize failed")
	// ErrChatTemplate means llama.cpp does not support the chat template or
	// the model has none.
	ErrChatTemplate = errors.New("chat template not supported")
)

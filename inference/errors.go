package inference

import "errors"

var (
	// ErrClosed is returned for work submitted to, or still waiting in, a
	// scheduler, generator or embedder that has been closed.
	ErrClosed = errors.New("inference: closed")
	// ErrKVFull means the context's KV cache had no room for a row; the row
	// fails and its slot is freed, other rows go on.
	ErrKVFull = errors.New("inference: no room in the KV cache")
	// ErrPromptTooLong means a prompt does not leave room for one generated
	// token in a slot's context; shorten it or raise ContextPerSlot.
	ErrPromptTooLong = errors.New("inference: prompt longer than the slot's context")
	// ErrEmptyPrompt means a request had no prompt tokens.
	ErrEmptyPrompt = errors.New("inference: empty prompt")
	// ErrInvalidToken means a prompt held a token id outside the vocabulary.
	ErrInvalidToken = errors.New("inference: token outside the vocabulary")
	// ErrUnknownAdapter means a request named an adapter the generator was
	// not loaded with.
	ErrUnknownAdapter = errors.New("inference: unknown adapter")
	// ErrNoChatTemplate means the model file carries no chat template, so
	// messages cannot be rendered; send a Prompt instead.
	ErrNoChatTemplate = errors.New("inference: model has no chat template")
)

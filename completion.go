package memd

import "unicode/utf8"

// CompletionRequest asks the generator to continue a raw prompt: no chat
// template, no memory. It is what POST /v1/completions carries, for base
// models (which have no template) and for clients that format their own
// prompts.
type CompletionRequest struct {
	Prompt   string   `json:"prompt"`
	Sampling Sampling `json:"sampling,omitzero"`
	// MaxTokens caps the output; 0 means DefaultCompletionMaxTokens.
	MaxTokens int      `json:"max_tokens,omitempty"`
	Stop      []string `json:"stop,omitempty"`
}

// DefaultCompletionMaxTokens is OpenAI's default for the completions route.
const DefaultCompletionMaxTokens = 16

// Validate refuses a request no model could answer, naming the field. The
// error wraps ErrBadRequest.
func (r *CompletionRequest) Validate() error {
	if r.Prompt == "" {
		return badRequest(`"prompt" is empty; send the text to continue`)
	}
	if !utf8.ValidString(r.Prompt) {
		return badRequest(`"prompt" is not valid UTF-8`)
	}
	if r.MaxTokens < 0 {
		return badRequest(`"max_tokens" is %d; send a positive number, or leave it out`, r.MaxTokens)
	}
	if err := validStops(r.Stop); err != nil {
		return err
	}
	return r.Sampling.Validate()
}

// CompletionResult is the continuation of a CompletionRequest's prompt.
type CompletionResult struct {
	Text   string `json:"text"`
	Finish string `json:"finish"` // FinishStop, FinishLength or FinishCancelled
	Usage  Usage  `json:"usage"`
	Model  string `json:"model"`
}

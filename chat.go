package memd

import "strings"

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"` // RoleSystem, RoleUser or RoleAssistant
	Content string `json:"content"`
}

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Sampling chooses how the generator picks tokens. The zero value is greedy
// decoding, which gives the same answer to the same prompt.
type Sampling struct {
	Temperature   float32 `json:"temperature,omitempty"`    // 0 is greedy
	TopK          int     `json:"top_k,omitempty"`          // 0 keeps all
	TopP          float32 `json:"top_p,omitempty"`          // 0 or 1 keeps all
	MinP          float32 `json:"min_p,omitempty"`          // 0 keeps all
	RepeatPenalty float32 `json:"repeat_penalty,omitempty"` // 0 or 1 is off
	Seed          uint64  `json:"seed,omitempty"`           // 0 picks one at random
}

// ChatRequest asks for an answer to the last user turn of Messages,
// grounded in the chunks of the notes that recall finds for it.
type ChatRequest struct {
	// Messages are the conversation so far, oldest first, ending with a
	// user turn. With SessionID they are only the new turns: the
	// session's history goes before them.
	Messages []Message `json:"messages"`
	// K is how many chunks to recall as sources; 0 means DefaultChatK.
	K       int     `json:"k,omitempty"`
	Filters Filters `json:"filters,omitzero"`
	// Memory false is a plain chat with the generator: no recall, no
	// sources. Nil means true.
	Memory   *bool    `json:"memory,omitempty"`
	Sampling Sampling `json:"sampling,omitzero"`
	// MaxTokens caps the answer; 0 means DefaultChatMaxTokens, bounded by
	// a quarter of the model's context.
	MaxTokens int      `json:"max_tokens,omitempty"`
	Stop      []string `json:"stop,omitempty"`
	// SessionID keeps the conversation in the daemon under this id, so a
	// client sends only its new turn. Sessions are dropped least recently
	// used first once the daemon's limit of sessions is kept.
	SessionID string `json:"session_id,omitempty"`
}

// UsesMemory reports whether the request recalls sources.
func (r ChatRequest) UsesMemory() bool { return r.Memory == nil || *r.Memory }

// Chat limits.
const (
	DefaultChatK         = 6
	MaxChatK             = 50
	DefaultChatMaxTokens = 512
	MaxStops             = 8
	MaxStopBytes         = 64
	MaxSessionIDBytes    = 128
)

// Validate refuses a request no model could answer, naming the field. The
// error wraps ErrBadRequest. Whether the daemon keeps sessions is the
// service's to check.
func (r *ChatRequest) Validate() error {
	if len(r.Messages) == 0 {
		return badRequest(`"messages" is empty; send at least one {"role":"user","content":"…"}`)
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return badRequest(`messages[%d] has role %q; use "system", "user" or "assistant"`, i, m.Role)
		}
	}
	if last := r.Messages[len(r.Messages)-1]; last.Role != RoleUser || strings.TrimSpace(last.Content) == "" {
		return badRequest(`the last message must be a user turn with some text; it is a %q turn of %d bytes`, last.Role, len(last.Content))
	}
	switch {
	case r.K < 0 || r.K > MaxChatK:
		return badRequest(`"k" is %d; send a number from 1 to %d, or leave it out for %d`, r.K, MaxChatK, DefaultChatK)
	case r.MaxTokens < 0:
		return badRequest(`"max_tokens" is %d; send a positive number, or leave it out`, r.MaxTokens)
	case len(r.SessionID) > MaxSessionIDBytes:
		return badRequest(`"session_id" is %d bytes; use at most %d`, len(r.SessionID), MaxSessionIDBytes)
	}
	if err := validStops(r.Stop); err != nil {
		return err
	}
	if err := r.Filters.Validate(); err != nil {
		return err
	}
	return r.Sampling.Validate()
}

// validStops refuses more than MaxStops stop strings, or one empty or
// longer than MaxStopBytes.
func validStops(stops []string) error {
	if len(stops) > MaxStops {
		return badRequest(`"stop" has %d strings; send at most %d`, len(stops), MaxStops)
	}
	for _, stop := range stops {
		if stop == "" || len(stop) > MaxStopBytes {
			return badRequest(`stop string %q must be 1 to %d bytes`, stop, MaxStopBytes)
		}
	}
	return nil
}

// Validate refuses sampling settings out of their ranges. The error wraps
// ErrBadRequest.
func (sp Sampling) Validate() error {
	switch {
	case sp.Temperature < 0 || sp.Temperature > 5:
		return badRequest(`"temperature" is %v; send 0 (greedy) to 5`, sp.Temperature)
	case sp.TopP < 0 || sp.TopP > 1, sp.MinP < 0 || sp.MinP > 1:
		return badRequest(`"top_p" and "min_p" must be between 0 and 1`)
	case sp.TopK < 0, sp.RepeatPenalty < 0:
		return badRequest(`"top_k" and "repeat_penalty" must not be negative`)
	}
	return nil
}

// Source is one recalled chunk given to the model, numbered as the prompt
// numbers it: N is what the answer cites as [N].
type Source struct {
	N         int      `json:"n"`
	Folder    string   `json:"folder"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Heading   []string `json:"heading"`
	Title     string   `json:"title,omitempty"`
	Text      string   `json:"text"`
	Score     float64  `json:"score"`
	ChunkID   uint64   `json:"chunk_id"`
}

// SourceOf is hit h given to the model as source n.
func SourceOf(n int, h Hit) Source {
	return Source{N: n, Folder: h.Folder, Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine,
		Heading: h.Heading, Title: h.Title, Text: h.Text, Score: h.Score, ChunkID: h.ChunkID}
}

// Citation is s as an answer that cites it names it.
func (s Source) Citation() Citation {
	return Citation{N: s.N, Path: s.Path, StartLine: s.StartLine, EndLine: s.EndLine, Heading: s.Heading, ChunkID: s.ChunkID}
}

// Citation is a source the answer cites: each distinct [N] in the answer
// text that names a source, in order of first appearance.
type Citation struct {
	N         int      `json:"n"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Heading   []string `json:"heading"`
	ChunkID   uint64   `json:"chunk_id"`
}

// Usage counts the tokens of one chat.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// ChatTimings are the phases of one chat, in milliseconds.
type ChatTimings struct {
	RecallMS     float64 `json:"recall_ms"`      // recall and prompt assembly
	QueueMS      float64 `json:"queue_ms"`       // waiting for a generator slot
	PrefillMS    float64 `json:"prefill_ms"`     // reading the prompt
	DecodeMS     float64 `json:"decode_ms"`      // first token to last
	FirstTokenMS float64 `json:"first_token_ms"` // from the request to the first text
	TotalMS      float64 `json:"total_ms"`
	// TokensPerSecond is the decode rate after the first token.
	TokensPerSecond float64 `json:"tokens_per_second"`
}

// Finish reasons of a ChatResult.
const (
	FinishStop      = "stop"      // the model ended its answer, or a stop string matched
	FinishLength    = "length"    // MaxTokens or the context ran out
	FinishCancelled = "cancelled" // the client went away or cancelled
)

// ChatResult is the whole answer to a ChatRequest.
type ChatResult struct {
	Message   Message     `json:"message"`
	Sources   []Source    `json:"sources"`
	Citations []Citation  `json:"citations"`
	Finish    string      `json:"finish"`
	Usage     Usage       `json:"usage"`
	Timings   ChatTimings `json:"timings"`
	Model     string      `json:"model"`
	SessionID string      `json:"session_id,omitempty"`
	Warnings  []string    `json:"warnings,omitempty"`
}

// ChatEvent is what a chat streams while it works: first the sources
// (always, and before any text; empty for a plain chat), then the answer's
// text in pieces.
type ChatEvent struct {
	Type    string   // ChatSources or ChatDelta
	Sources []Source // ChatSources
	Delta   string   // ChatDelta
}

// Chat event types. They are also the SSE event names of POST /v1/chat
// with "stream": true, in the order they come: one ChatSources, any number
// of ChatDelta, then ChatDone (the whole ChatResult) or ChatError (an
// ErrorBody).
const (
	ChatSources = "sources"
	ChatDelta   = "delta"
	ChatDone    = "done"
	ChatError   = "error"
)

// ChatBody is the body of POST /v1/chat: a ChatRequest, streamed as
// server-sent events when Stream is set.
type ChatBody struct {
	ChatRequest
	Stream bool `json:"stream,omitempty"`
}

// The data of the /v1/chat stream's events.
type (
	// SourcesEvent is the data of a ChatSources event.
	SourcesEvent struct {
		Sources []Source `json:"sources"`
	}
	// DeltaEvent is the data of a ChatDelta event.
	DeltaEvent struct {
		Text string `json:"text"`
	}
)

package memory

import "time"

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
	// used first once ChatOptions.Sessions are kept.
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
	maxStopBytes         = 64
	maxSessionIDBytes    = 128
)

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

// ChatEvent is what Chat streams while it works: first the sources (always,
// and before any text; empty for a plain chat), then the answer's text in
// pieces.
type ChatEvent struct {
	Type    string   // ChatSources or ChatDelta
	Sources []Source // ChatSources
	Delta   string   // ChatDelta
}

// Chat event types.
const (
	ChatSources = "sources"
	ChatDelta   = "delta"
)

// ChatOptions tune chat. The zero value is what the daemon uses.
type ChatOptions struct {
	// MaxInFlight is how many chats may be queued or generating at once;
	// more get ErrBusy. Zero means 64.
	MaxInFlight int
	// Sessions is how many server-kept conversations are remembered; zero
	// means 256, negative turns sessions off.
	Sessions int
	// SessionMessages caps the turns kept per session, oldest dropped
	// first; zero means 64.
	SessionMessages int
	// RetryAfter is the wait suggested to a client refused with ErrBusy;
	// zero means one second.
	RetryAfter time.Duration
}

func (o ChatOptions) withDefaults() ChatOptions {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if o.Sessions == 0 {
		o.Sessions = 256
	}
	if o.SessionMessages <= 0 {
		o.SessionMessages = 64
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	return o
}

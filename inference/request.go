package inference

import "time"

// Priority orders work that competes for slots and batch space. Interactive
// work (chat, query embedding) goes before Background work (indexing). The
// zero value is Background, so indexing code that forgets to say cannot
// starve a person waiting for an answer.
type Priority int

const (
	// Background is indexing work: chunking, summaries, chunk embeddings.
	Background Priority = iota
	// Interactive is work a person is waiting for.
	Interactive
)

func (p Priority) String() string {
	if p == Interactive {
		return "interactive"
	}
	return "background"
}

// Sampling chooses how the next token is picked from the logits. The zero
// value is greedy decoding (always the most likely token), which is
// deterministic. Filters apply in llama.cpp's order: repeat penalty, top-k,
// top-p, min-p, then temperature.
type Sampling struct {
	// Temperature scales the logits before a random draw; 0 or below means
	// greedy.
	Temperature float32
	// TopK keeps the K most likely tokens; 0 keeps all.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// sums to at least TopP; 0 or 1 keeps all.
	TopP float32
	// MinP drops tokens less likely than MinP times the most likely one;
	// 0 keeps all.
	MinP float32
	// RepeatPenalty divides positive (multiplies negative) logits of tokens
	// seen in the last RepeatLastN tokens of prompt and output; 0 or 1 is off.
	RepeatPenalty float32
	// RepeatLastN is the penalty window; 0 means 64.
	RepeatLastN int
	// Seed makes random draws reproducible; 0 picks a random seed.
	Seed uint64
}

// Greedy reports whether s always picks the most likely token.
func (s Sampling) Greedy() bool { return s.Temperature <= 0 }

// Request is one generation for a Scheduler: a prompt in tokens, how to
// sample, and when to stop.
type Request struct {
	// Prompt is the tokenized prompt, special tokens included. It must not
	// be empty, and prompt plus output must fit the scheduler's
	// ContextPerSlot.
	Prompt []int32
	// Sampling picks tokens; the zero value is greedy.
	Sampling Sampling
	// MaxTokens caps the generated tokens; 0 means up to the slot's context.
	MaxTokens int
	// Stop ends generation at the first occurrence of any of these strings
	// in the output. The stop string itself is never emitted or returned.
	Stop []string
	// Priority decides who gets a free slot and prefill budget first.
	Priority Priority
	// Thinking, when set, names the tokens around a reasoning model's
	// thinking block; see Thinking.
	Thinking *Thinking
	// OnToken, when set, receives the output text as it is produced, in
	// order, on the goroutine that called Submit (so a slow callback delays
	// only its own request). Pieces never split a UTF-8 character and never
	// include text that might turn out to be part of a stop string. A
	// non-nil error cancels the request; Submit then returns that error.
	OnToken func(piece string) error
}

// Thinking names the tokens that open and close a reasoning model's
// thinking block: Gemma 4's <|channel> … <channel|>, Qwen's and DeepSeek's
// <think> … </think>. A block, its two tokens and the whitespace after it
// never reach the output text (nor OnToken, nor stop strings); its tokens
// still count in Completion.Tokens and MaxTokens. memd's stages want the
// answer alone, and a thought is not an answer.
type Thinking struct {
	Open, Close int32
	// Inside says the prompt ends inside an open block (some templates
	// open one for the model), so output starts hidden until Close.
	Inside bool
}

// FinishReason says why a generation ended.
type FinishReason string

const (
	// FinishStop: a stop string matched.
	FinishStop FinishReason = "stop"
	// FinishLength: MaxTokens or the slot's context was reached.
	FinishLength FinishReason = "length"
	// FinishEOG: the model produced an end-of-generation token.
	FinishEOG FinishReason = "eog"
	// FinishCancelled: the caller's context ended, OnToken failed, or the
	// scheduler closed.
	FinishCancelled FinishReason = "cancelled"
	// FinishError: the row failed (for example a decode error).
	FinishError FinishReason = "error"
)

// Timings are the wall-clock phases of one request.
type Timings struct {
	// Queue is the time from Submit until the request got a slot.
	Queue time.Duration
	// Prefill is the time from getting a slot until the first output token
	// was sampled.
	Prefill time.Duration
	// Decode is the time from the first output token until the end.
	Decode time.Duration
}

// Completion is the outcome of one generation. It is filled in as far as
// the generation got, also when an error is returned.
type Completion struct {
	// Text is the output with any stop string and everything after it cut.
	Text string
	// Tokens are the sampled tokens, without a final end-of-generation
	// token; with a stop string they include the token that completed it.
	Tokens []int32
	// PromptTokens is the number of prompt tokens.
	PromptTokens int
	// Generated is len(Tokens).
	Generated int
	// Finish says why generation ended.
	Finish FinishReason
	// Timings of the phases.
	Timings Timings
}

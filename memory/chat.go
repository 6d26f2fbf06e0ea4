package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd/inference"
)

// Generator is the local model Chat answers with; *inference.Generator
// implements it. Chat always uses the base model (no adapter) at
// interactive priority.
type Generator interface {
	Complete(ctx context.Context, r inference.CompletionRequest) (inference.Completion, error)
	ChatPrompt(msgs []inference.Message) (string, error)
	Tokenize(text string, addSpecial, parseSpecial bool) ([]int32, error)
	Info() inference.ModelInfo
	Config() inference.GeneratorConfig
}

// BusyError is returned by Chat when ChatOptions.MaxInFlight chats are
// already queued or generating. It wraps ErrBusy.
type BusyError struct {
	InFlight   int
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("memd is answering %d chats, its limit; try again in %v", e.InFlight, e.RetryAfter)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// errNoGenerator is what chat answers when the daemon has no model to
// generate with.
var errNoGenerator = fmt.Errorf("%w: chat needs a generator model and none is loaded; "+
	"start memd with --generator PATH (a GGUF chat model), or run `memctl model set generator PATH`; "+
	"recall works without one", ErrUnavailable)

// chatState is the Service's chat bookkeeping.
type chatState struct {
	opt      ChatOptions
	inFlight atomic.Int64
	sessions *sessions
	bos      atomic.Int64 // the generator's BOS token + 1; 0 until known
}

func newChatState(o ChatOptions) *chatState {
	o = o.withDefaults()
	return &chatState{opt: o, sessions: newSessions(o.Sessions, o.SessionMessages)}
}

// admit counts a chat in, or refuses it when the limit is reached.
func (c *chatState) admit() (release func(), err error) {
	n := c.inFlight.Add(1)
	if n > int64(c.opt.MaxInFlight) {
		c.inFlight.Add(-1)
		return nil, &BusyError{InFlight: c.opt.MaxInFlight, RetryAfter: c.opt.RetryAfter}
	}
	return func() { c.inFlight.Add(-1) }, nil
}

// ChatsInFlight is the number of chats queued or generating now.
func (s *Service) ChatsInFlight() int { return int(s.chat.inFlight.Load()) }

// Chat answers the last user turn of r.Messages. Unless r.Memory is false it
// recalls chunks of the notes for the conversation and gives them to the
// model as numbered sources inside the model's context, lowest-ranked
// dropped first when they do not fit. sink, when not nil, receives the
// sources before any text, then the text in pieces as it is generated; an
// error from sink stops the generation and is returned. When ctx ends the
// generation stops within a decode step and frees its slot.
//
// With no generator loaded Chat returns an error wrapping ErrUnavailable;
// with too many chats in flight, a *BusyError.
func (s *Service) Chat(ctx context.Context, r ChatRequest, sink func(ChatEvent) error) (ChatResult, error) {
	start := time.Now()
	if s.gen == nil {
		return ChatResult{}, errNoGenerator
	}
	if err := s.checkChat(&r); err != nil {
		return ChatResult{}, err
	}
	release, err := s.chat.admit()
	if err != nil {
		return ChatResult{}, err
	}
	defer release()
	if sink == nil {
		sink = func(ChatEvent) error { return nil }
	}
	res := ChatResult{Model: s.GeneratorName(), SessionID: r.SessionID, Sources: []Source{}, Citations: []Citation{}}
	conv := append(s.chat.sessions.history(r.SessionID), r.Messages...)

	var hits []Hit
	if r.UsesMemory() {
		k := r.K
		if k == 0 {
			k = DefaultChatK
		}
		rec, err := s.Recall(ctx, RecallRequest{Query: recallQuery(conv), K: k, Filters: r.Filters})
		if err != nil {
			return res, fmt.Errorf("chat: %w", err)
		}
		hits = rec.Hits
		res.Warnings = append(res.Warnings, rec.Warnings...)
	}
	maxOut := s.maxTokens(r.MaxTokens)
	p, err := s.buildPrompt(conv, hits, r.UsesMemory(), s.contextTokens()-maxOut)
	if err != nil {
		return res, err
	}
	res.Sources = p.sources
	res.Warnings = append(res.Warnings, p.warnings()...)
	res.Timings.RecallMS = ms(time.Since(start))
	if err := sink(ChatEvent{Type: ChatSources, Sources: res.Sources}); err != nil {
		return res, fmt.Errorf("chat: send sources: %w", err)
	}

	var first time.Time
	comp, err := s.gen.Complete(ctx, inference.CompletionRequest{
		Tokens:    p.tokens,
		Sampling:  r.Sampling.inference(),
		MaxTokens: maxOut,
		Stop:      r.Stop,
		Priority:  inference.Interactive,
		OnToken: func(piece string) error {
			if first.IsZero() {
				first = time.Now()
			}
			return sink(ChatEvent{Type: ChatDelta, Delta: piece})
		},
	})
	res.fill(comp, start, first)
	if err != nil {
		res.Finish = FinishCancelled
		return res, generatorError(err)
	}
	res.Citations = cite(res.Message.Content, res.Sources)
	s.chat.sessions.record(r.SessionID, r.Messages, res.Message)
	return res, nil
}

// fill copies a completion into the result.
func (res *ChatResult) fill(c inference.Completion, start, first time.Time) {
	res.Message = Message{Role: RoleAssistant, Content: c.Text}
	res.Usage = Usage{PromptTokens: c.PromptTokens, CompletionTokens: c.Generated}
	switch c.Finish {
	case inference.FinishLength:
		res.Finish = FinishLength
	case inference.FinishCancelled, inference.FinishError:
		res.Finish = FinishCancelled
	default:
		res.Finish = FinishStop
	}
	t := &res.Timings
	t.QueueMS, t.PrefillMS, t.DecodeMS = ms(c.Timings.Queue), ms(c.Timings.Prefill), ms(c.Timings.Decode)
	if !first.IsZero() {
		t.FirstTokenMS = ms(first.Sub(start))
	}
	if c.Generated > 1 && c.Timings.Decode > 0 {
		t.TokensPerSecond = float64(c.Generated-1) / c.Timings.Decode.Seconds()
	}
	t.TotalMS = ms(time.Since(start))
}

// generatorError maps the generator's errors onto the service's kinds.
func generatorError(err error) error {
	switch {
	case errors.Is(err, inference.ErrClosed):
		return fmt.Errorf("%w: the generator is shutting down; try again once memd is back", ErrUnavailable)
	case errors.Is(err, inference.ErrPromptTooLong):
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return fmt.Errorf("chat: %w", err)
}

// checkChat refuses a request no model could answer, naming the field.
func (s *Service) checkChat(r *ChatRequest) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadRequest}, args...)...)
	}
	if len(r.Messages) == 0 {
		return bad(`"messages" is empty; send at least one {"role":"user","content":"…"}`)
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return bad(`messages[%d] has role %q; use "system", "user" or "assistant"`, i, m.Role)
		}
	}
	if last := r.Messages[len(r.Messages)-1]; last.Role != RoleUser || strings.TrimSpace(last.Content) == "" {
		return bad(`the last message must be a user turn with some text; it is a %q turn of %d bytes`, last.Role, len(last.Content))
	}
	switch {
	case r.K < 0 || r.K > MaxChatK:
		return bad(`"k" is %d; send a number from 1 to %d, or leave it out for %d`, r.K, MaxChatK, DefaultChatK)
	case r.MaxTokens < 0:
		return bad(`"max_tokens" is %d; send a positive number, or leave it out`, r.MaxTokens)
	case len(r.Stop) > MaxStops:
		return bad(`"stop" has %d strings; send at most %d`, len(r.Stop), MaxStops)
	case len(r.SessionID) > maxSessionIDBytes:
		return bad(`"session_id" is %d bytes; use at most %d`, len(r.SessionID), maxSessionIDBytes)
	case r.SessionID != "" && !s.chat.sessions.enabled():
		return bad(`"session_id" was sent but this memd keeps no sessions; send the whole conversation instead`)
	}
	for _, stop := range r.Stop {
		if stop == "" || len(stop) > maxStopBytes {
			return bad(`stop string %q must be 1 to %d bytes`, stop, maxStopBytes)
		}
	}
	sp := r.Sampling
	switch {
	case sp.Temperature < 0 || sp.Temperature > 5:
		return bad(`"temperature" is %v; send 0 (greedy) to 5`, sp.Temperature)
	case sp.TopP < 0 || sp.TopP > 1, sp.MinP < 0 || sp.MinP > 1:
		return bad(`"top_p" and "min_p" must be between 0 and 1`)
	case sp.TopK < 0, sp.RepeatPenalty < 0:
		return bad(`"top_k" and "repeat_penalty" must not be negative`)
	}
	return nil
}

func (sp Sampling) inference() inference.Sampling {
	return inference.Sampling{Temperature: sp.Temperature, TopK: sp.TopK, TopP: sp.TopP, MinP: sp.MinP,
		RepeatPenalty: sp.RepeatPenalty, Seed: sp.Seed}
}

// contextTokens is the most tokens one chat may hold, prompt and answer.
func (s *Service) contextTokens() int { return s.gen.Config().ContextPerSlot }

// maxTokens is the answer's cap: what was asked, leaving room for a
// prompt, or by default a quarter of the context up to DefaultChatMaxTokens.
func (s *Service) maxTokens(asked int) int {
	ctx := s.contextTokens()
	if asked == 0 {
		return max(1, min(DefaultChatMaxTokens, ctx/4))
	}
	return max(1, min(asked, ctx-minPromptTokens))
}

// GeneratorName is the name chat results carry: the model's general.name,
// else its file name; "" without a generator.
func (s *Service) GeneratorName() string {
	if s.gen == nil {
		return ""
	}
	return s.gen.Info().DisplayName()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

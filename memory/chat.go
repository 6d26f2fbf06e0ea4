package memory

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/memd-dev/memd"
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

// errNoGenerator is what chat answers when the daemon has no model to
// generate with.
var errNoGenerator error = classified{memd.ErrUnavailable, errors.New("chat needs a generator model and none is configured; " +
	"run `memctl model set generator PATH` (a GGUF chat model) or start memd with --generator PATH; " +
	"recall works without one")}

// noGenerator says why chat has no generator: none configured, or the one
// configured did not load, and then why (a missing llama.cpp runtime, a bad
// file), since setting the generator again would not help.
func (s *Service) noGenerator() error {
	for _, m := range s.models {
		if m.Role == "generator" && m.Path != "" && m.Reason != "" {
			return classified{memd.ErrUnavailable, fmt.Errorf("chat needs the generator %s, which did not load: %s; recall works without it",
				m.Path, m.Reason)}
		}
	}
	return errNoGenerator
}

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
		return nil, &memd.BusyError{InFlight: c.opt.MaxInFlight, RetryAfter: c.opt.RetryAfter}
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
func (s *Service) Chat(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
	start := time.Now()
	if s.gen == nil {
		return memd.ChatResult{}, s.noGenerator()
	}
	if err := s.checkChat(&r); err != nil {
		return memd.ChatResult{}, err
	}
	release, err := s.chat.admit()
	if err != nil {
		return memd.ChatResult{}, err
	}
	defer release()
	if sink == nil {
		sink = func(memd.ChatEvent) error { return nil }
	}
	res := memd.ChatResult{Model: s.GeneratorName(), SessionID: r.SessionID, Sources: []memd.Source{}, Citations: []memd.Citation{}}
	conv := append(s.chat.sessions.history(r.SessionID), r.Messages...)

	var hits []memd.Hit
	if r.UsesMemory() {
		k := r.K
		if k == 0 {
			k = memd.DefaultChatK
		}
		rec, err := s.Recall(ctx, memd.RecallRequest{Query: recallQuery(conv), K: k, Filters: r.Filters})
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
	if err := sink(memd.ChatEvent{Type: memd.ChatSources, Sources: res.Sources}); err != nil {
		return res, fmt.Errorf("chat: send sources: %w", err)
	}

	var first time.Time
	comp, err := s.gen.Complete(ctx, inference.CompletionRequest{
		Tokens:    p.tokens,
		Sampling:  samplingOf(r.Sampling),
		MaxTokens: maxOut,
		Stop:      r.Stop,
		Priority:  inference.Interactive,
		OnToken: func(piece string) error {
			if first.IsZero() {
				first = time.Now()
			}
			return sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: piece})
		},
	})
	fill(&res, comp, start, first)
	if err != nil {
		res.Finish = memd.FinishCancelled
		return res, generatorError(err)
	}
	res.Citations = cite(res.Message.Content, res.Sources)
	s.chat.sessions.record(r.SessionID, r.Messages, res.Message)
	return res, nil
}

// fill copies a completion into the result.
func fill(res *memd.ChatResult, c inference.Completion, start, first time.Time) {
	res.Message = memd.Message{Role: memd.RoleAssistant, Content: c.Text}
	res.Usage = memd.Usage{PromptTokens: c.PromptTokens, CompletionTokens: c.Generated}
	res.Finish = finishOf(c.Finish)
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

// finishOf is the wire's name for why a generation ended.
func finishOf(f inference.FinishReason) string {
	switch f {
	case inference.FinishLength:
		return memd.FinishLength
	case inference.FinishCancelled, inference.FinishError:
		return memd.FinishCancelled
	}
	return memd.FinishStop
}

// generatorError maps the generator's errors onto the service's kinds.
func generatorError(err error) error {
	switch {
	case errors.Is(err, inference.ErrClosed):
		return fmt.Errorf("%w: the generator is shutting down; try again once memd is back", memd.ErrUnavailable)
	case errors.Is(err, inference.ErrPromptTooLong):
		return fmt.Errorf("%w: %w", memd.ErrBadRequest, err)
	}
	return fmt.Errorf("chat: %w", err)
}

// checkChat refuses a request no model could answer, naming the field: the
// request's own Validate, and a session id sent to a memd that keeps none.
func (s *Service) checkChat(r *memd.ChatRequest) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.SessionID != "" && !s.chat.sessions.enabled() {
		return fmt.Errorf(`%w: "session_id" was sent but this memd keeps no sessions; send the whole conversation instead`, memd.ErrBadRequest)
	}
	return nil
}

// samplingOf is the request's sampling as the inference package takes it.
func samplingOf(sp memd.Sampling) inference.Sampling {
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
		return max(1, min(memd.DefaultChatMaxTokens, ctx/4))
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

package apitest

import (
	"context"
	"fmt"
	"strings"

	"github.com/memd-dev/memd"
)

// Chat streams ChatAnswer after the sources recall finds for the last user
// turn, or answers as ChatHook says. A source counts as cited when "[n]"
// appears in the answer.
func (s *Service) Chat(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
	s.Mu.Lock()
	s.LastChat = r
	hook, answer := s.ChatHook, s.ChatAnswer
	s.Mu.Unlock()
	if hook != nil {
		return hook(ctx, r, sink)
	}
	if answer == "" {
		return memd.ChatResult{}, fmt.Errorf("%w: chat needs a generator model and none is loaded", memd.ErrUnavailable)
	}
	if sink == nil {
		sink = func(memd.ChatEvent) error { return nil }
	}
	res := memd.ChatResult{Model: "apitest", SessionID: r.SessionID, Sources: []memd.Source{}, Citations: []memd.Citation{}}
	if r.UsesMemory() && len(r.Messages) > 0 {
		rec, err := s.Recall(ctx, memd.RecallRequest{Query: r.Messages[len(r.Messages)-1].Content})
		if err != nil {
			return res, err
		}
		for i, h := range rec.Hits {
			res.Sources = append(res.Sources, memd.SourceOf(i+1, h))
		}
	}
	if err := sink(memd.ChatEvent{Type: memd.ChatSources, Sources: res.Sources}); err != nil {
		return res, err
	}
	for i, w := range strings.SplitAfter(answer, " ") {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: w}); err != nil {
			return res, err
		}
		res.Usage.CompletionTokens = i + 1
	}
	for _, src := range res.Sources {
		if strings.Contains(answer, fmt.Sprintf("[%d]", src.N)) {
			res.Citations = append(res.Citations, src.Citation())
		}
	}
	res.Message = memd.Message{Role: memd.RoleAssistant, Content: answer}
	res.Finish = memd.FinishStop
	return res, nil
}

// Embed answers as EmbedHook says, or memd.ErrUnavailable.
func (s *Service) Embed(ctx context.Context, texts []string) (memd.EmbedResult, error) {
	s.Mu.Lock()
	hook := s.EmbedHook
	s.Mu.Unlock()
	if hook == nil {
		return memd.EmbedResult{}, fmt.Errorf("%w: embeddings need an embedding model and none is loaded", memd.ErrUnavailable)
	}
	return hook(ctx, texts)
}

// Complete answers with CompleteHook, or memd.ErrUnavailable without one.
func (s *Service) Complete(ctx context.Context, r memd.CompletionRequest, sink func(string) error) (memd.CompletionResult, error) {
	s.Mu.Lock()
	hook := s.CompleteHook
	s.Mu.Unlock()
	if hook == nil {
		return memd.CompletionResult{}, fmt.Errorf("%w: completions need a generator model and none is loaded", memd.ErrUnavailable)
	}
	return hook(ctx, r, sink)
}

// Models returns ModelList.
func (s *Service) Models(context.Context) ([]memd.Model, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]memd.Model{}, s.ModelList...), nil
}

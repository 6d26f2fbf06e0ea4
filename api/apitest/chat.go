package apitest

import (
	"context"
	"fmt"
	"strings"

	"github.com/memd-dev/memd/memory"
)

// Chat streams ChatAnswer after the sources recall finds for the last user
// turn, or answers as ChatHook says. A source counts as cited when "[n]"
// appears in the answer.
func (s *Service) Chat(ctx context.Context, r memory.ChatRequest, sink func(memory.ChatEvent) error) (memory.ChatResult, error) {
	s.Mu.Lock()
	s.LastChat = r
	hook, answer := s.ChatHook, s.ChatAnswer
	s.Mu.Unlock()
	if hook != nil {
		return hook(ctx, r, sink)
	}
	if answer == "" {
		return memory.ChatResult{}, fmt.Errorf("%w: chat needs a generator model and none is loaded", memory.ErrUnavailable)
	}
	if sink == nil {
		sink = func(memory.ChatEvent) error { return nil }
	}
	res := memory.ChatResult{Model: "apitest", SessionID: r.SessionID, Sources: []memory.Source{}, Citations: []memory.Citation{}}
	if r.UsesMemory() && len(r.Messages) > 0 {
		rec, err := s.Recall(ctx, memory.RecallRequest{Query: r.Messages[len(r.Messages)-1].Content})
		if err != nil {
			return res, err
		}
		for i, h := range rec.Hits {
			res.Sources = append(res.Sources, memory.Source{N: i + 1, Folder: h.Folder, Path: h.Path, StartLine: h.StartLine,
				EndLine: h.EndLine, Heading: h.Heading, Text: h.Text, ChunkID: h.ChunkID})
		}
	}
	if err := sink(memory.ChatEvent{Type: memory.ChatSources, Sources: res.Sources}); err != nil {
		return res, err
	}
	for i, w := range strings.SplitAfter(answer, " ") {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := sink(memory.ChatEvent{Type: memory.ChatDelta, Delta: w}); err != nil {
			return res, err
		}
		res.Usage.CompletionTokens = i + 1
	}
	for _, src := range res.Sources {
		if strings.Contains(answer, fmt.Sprintf("[%d]", src.N)) {
			res.Citations = append(res.Citations, memory.Citation{N: src.N, Path: src.Path, StartLine: src.StartLine,
				EndLine: src.EndLine, Heading: src.Heading, ChunkID: src.ChunkID})
		}
	}
	res.Message = memory.Message{Role: memory.RoleAssistant, Content: answer}
	res.Finish = memory.FinishStop
	return res, nil
}

// Embed answers as EmbedHook says, or memory.ErrUnavailable.
func (s *Service) Embed(ctx context.Context, texts []string) (memory.EmbedResult, error) {
	s.Mu.Lock()
	hook := s.EmbedHook
	s.Mu.Unlock()
	if hook == nil {
		return memory.EmbedResult{}, fmt.Errorf("%w: embeddings need an embedding model and none is loaded", memory.ErrUnavailable)
	}
	return hook(ctx, texts)
}

// Models returns ModelList.
func (s *Service) Models(context.Context) ([]memory.Model, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]memory.Model{}, s.ModelList...), nil
}

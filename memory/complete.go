package memory

import (
	"context"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
)

// Complete continues r.Prompt with the generator as it is: no chat
// template, no memory (POST /v1/completions; the one way to use a base
// model, which has no template). sink, when not nil, receives the text in
// pieces as it is generated; an error from sink stops the generation and
// is returned. It counts against the same in-flight limit as Chat.
func (s *Service) Complete(ctx context.Context, r memd.CompletionRequest, sink func(string) error) (memd.CompletionResult, error) {
	if s.gen == nil {
		return memd.CompletionResult{}, errNoGenerator
	}
	if err := r.Validate(); err != nil {
		return memd.CompletionResult{}, err
	}
	release, err := s.chat.admit()
	if err != nil {
		return memd.CompletionResult{}, err
	}
	defer release()
	maxOut := r.MaxTokens
	if maxOut == 0 {
		maxOut = memd.DefaultCompletionMaxTokens
	}
	c, err := s.gen.Complete(ctx, inference.CompletionRequest{
		Prompt:    r.Prompt,
		Sampling:  samplingOf(r.Sampling),
		MaxTokens: maxOut,
		Stop:      r.Stop,
		Priority:  inference.Interactive,
		OnToken:   sink,
	})
	res := memd.CompletionResult{Text: c.Text, Finish: finishOf(c.Finish), Model: s.GeneratorName(),
		Usage: memd.Usage{PromptTokens: c.PromptTokens, CompletionTokens: c.Generated}}
	if err != nil {
		res.Finish = memd.FinishCancelled
		return res, generatorError(err)
	}
	return res, nil
}

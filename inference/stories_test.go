package inference

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/memd-dev/memd/inference/llama/llamatest"
)

// storiesTokens is enough output to cover llamatest.StoriesContinuation.
const storiesTokens = 80

// TestStories260KGreedyAlone: a trained model's greedy output through memd
// is the documented one, word for word.
func TestStories260KGreedyAlone(t *testing.T) {
	g := loadGenerator(t, GeneratorConfig{Path: llamatest.Stories260K(t), Slots: 1, ContextPerSlot: 256})
	c, err := g.Complete(context.Background(), CompletionRequest{Prompt: llamatest.StoriesPrompt, MaxTokens: storiesTokens})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Text, llamatest.StoriesContinuation) {
		t.Fatalf("greedy continuation of %q:\n got %q\nwant %q…", llamatest.StoriesPrompt, c.Text, llamatest.StoriesContinuation)
	}
}

// TestStories260KGreedyInBatch: the same row decoded beside seven other
// prompts of other lengths, in one batch of eight, is unchanged, and so is
// every other row against its solo run.
func TestStories260KGreedyInBatch(t *testing.T) {
	path := llamatest.Stories260K(t)
	others := []string{"Tom had a dog", "The sun", "Once there was a big tree in a small town and", "Sue",
		"One day a cat and a bird went to the park to play", "Max liked", "It was a rainy day"}
	solo := loadGenerator(t, GeneratorConfig{Path: path, Slots: 1, ContextPerSlot: 256})
	want := map[string]string{}
	for _, p := range others {
		c, err := solo.Complete(context.Background(), CompletionRequest{Prompt: p, MaxTokens: storiesTokens})
		if err != nil {
			t.Fatal(err)
		}
		want[p] = c.Text
	}
	g := loadGenerator(t, GeneratorConfig{Path: path, Slots: 8, ContextPerSlot: 256})
	prompts := append([]string{llamatest.StoriesPrompt}, others...)
	got := make([]string, len(prompts))
	var wg sync.WaitGroup
	errs := make([]error, len(prompts))
	for i, p := range prompts {
		wg.Go(func() {
			c, err := g.Complete(context.Background(), CompletionRequest{Prompt: p, MaxTokens: storiesTokens})
			got[i], errs[i] = c.Text, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got[0], llamatest.StoriesContinuation) {
		t.Fatalf("in a batch of 8:\n got %q\nwant %q…", got[0], llamatest.StoriesContinuation)
	}
	for i, p := range others {
		if got[i+1] != want[p] {
			t.Errorf("%q in the batch: %q, alone: %q", p, got[i+1], want[p])
		}
	}
	// Alone, every sampled token costs a step of its own.
	if s, _ := g.Scheduler(""); s.Stats().Steps*2 > s.Stats().Sampled {
		t.Errorf("%d steps for %d sampled tokens: the rows hardly shared steps", s.Stats().Steps, s.Stats().Sampled)
	}
}

// TestStories260KHasNoChatTemplate: chat on a model without a template is
// a clear error, not a guessed format.
func TestStories260KHasNoChatTemplate(t *testing.T) {
	g := loadGenerator(t, GeneratorConfig{Path: llamatest.Stories260K(t), Slots: 1, ContextPerSlot: 256})
	_, err := g.Complete(context.Background(), CompletionRequest{Messages: []Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, ErrNoChatTemplate) {
		t.Fatalf("chat without a template: %v", err)
	}
}

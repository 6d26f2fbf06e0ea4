package inference

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/memd-dev/memd/inference/llama"
)

// GeneratorConfig says which model to load and how to serve it. The zero
// value of every field but Path is useful.
type GeneratorConfig struct {
	// Path is the model's GGUF file.
	Path string
	// Adapters names LoRA adapter files (GGUF) by the name requests use,
	// for example "memory-chunk". Each gets its own context, with that
	// adapter active, over the one set of model weights.
	Adapters map[string]string
	// Scales sets an adapter's strength by name; an adapter not named here
	// has scale 1. Scale 0 gives the base model's output.
	Scales map[string]float32
	// Slots is how many requests each context decodes together; default 4.
	Slots int
	// ContextPerSlot is the most tokens (prompt and output) of one request;
	// default 2048, at most the model's training context.
	ContextPerSlot int
	// Threads is the CPU threads per decode; default the number of CPUs.
	Threads int
	// BatchSize is the most tokens per decode step; default 512.
	BatchSize int
	// GPULayers is passed to llama.cpp: how many layers to offload; 0 is
	// the library's default.
	GPULayers int
	// Logger receives problems that fail no request; nil discards them.
	Logger *slog.Logger
}

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// CompletionRequest is one generation. Exactly one of Prompt, Tokens and
// Messages is the input.
type CompletionRequest struct {
	// Adapter picks the context by adapter name; "" is the base model.
	Adapter string
	// Prompt is raw text, tokenized with the model's BOS and with special
	// tokens (like "<start_of_turn>") parsed.
	Prompt string
	// Tokens is an already tokenized prompt.
	Tokens []int32
	// Messages are rendered with the model's chat template, ending with an
	// open assistant turn.
	Messages []Message
	Sampling Sampling
	// MaxTokens caps the output; 0 means up to the slot's context.
	MaxTokens int
	Stop      []string
	Priority  Priority
	// OnToken streams the output; see Request.OnToken.
	OnToken func(piece string) error
}

// Generator serves completions from one model. It keeps one llama.cpp
// context, each with its own Scheduler, per adapter set: the base model
// and each configured adapter. Requests for different adapters decode
// concurrently in their own contexts; requests for the same one share
// batches. All methods are safe for concurrent use.
type Generator struct {
	model    *llama.Model
	vocab    *modelVocab // shared by every context's scheduler
	chat     chatFormat
	info     ModelInfo
	cfg      GeneratorConfig
	contexts map[string]*genContext

	// mu keeps the model alive while a caller tokenizes: Close takes it
	// for writing before freeing anything.
	mu     sync.RWMutex
	closed bool
}

type genContext struct {
	dec   *ContextDecoder
	sched *Scheduler
}

// LoadGenerator checks and loads the model, mounts the adapters and
// creates a context and scheduler per adapter set. On error nothing stays
// loaded.
func LoadGenerator(lib *llama.Library, cfg GeneratorConfig) (g *Generator, err error) {
	cfg = generatorDefaults(cfg)
	m, info, err := loadModel(lib, cfg.Path, cfg.GPULayers)
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	g = &Generator{model: m, vocab: newModelVocab(m), chat: newChatFormat(m), info: info, cfg: cfg, contexts: map[string]*genContext{}}
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	if cfg.ContextPerSlot > m.NCtxTrain() && m.NCtxTrain() > 0 {
		cfg.ContextPerSlot = m.NCtxTrain()
		g.cfg = cfg
	}
	if err := g.addContext("", nil, 0); err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Adapters)) {
		path := cfg.Adapters[name]
		a, err := m.LoadAdapter(path)
		if err != nil {
			return nil, fmt.Errorf("load generator: adapter %q from %s: %w", name, path, err)
		}
		scale := float32(1)
		if s, ok := cfg.Scales[name]; ok {
			scale = s
		}
		if err := g.addContext(name, a, scale); err != nil {
			return nil, err
		}
		g.info.Adapters = append(g.info.Adapters, name)
	}
	return g, nil
}

func generatorDefaults(cfg GeneratorConfig) GeneratorConfig {
	if cfg.Slots <= 0 {
		cfg.Slots = 4
	}
	if cfg.ContextPerSlot <= 0 {
		cfg.ContextPerSlot = 2048
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 512
	}
	cfg.BatchSize = max(cfg.BatchSize, cfg.Slots)
	cfg.Threads = defaultThreads(cfg.Threads)
	return cfg
}

func (g *Generator) addContext(name string, a *llama.Adapter, scale float32) error {
	c, err := g.model.NewContext(llama.ContextParams{
		NCtx:     g.cfg.Slots * g.cfg.ContextPerSlot,
		NBatch:   g.cfg.BatchSize,
		NUbatch:  g.cfg.BatchSize,
		NSeqMax:  g.cfg.Slots,
		NThreads: g.cfg.Threads,
		// One stream for all sequences: a step's tokens stay one ubatch
		// however many rows they come from.
		KVUnified: true,
		Pooling:   llama.PoolingUnspecified,
		FlashAttn: llama.FlashAttnAuto,
	})
	if err != nil {
		return fmt.Errorf("load generator: context %q: %w", name, err)
	}
	if a != nil {
		if err := c.SetAdapters([]*llama.Adapter{a}, []float32{scale}); err != nil {
			c.Close()
			return fmt.Errorf("load generator: activate adapter %q: %w", name, err)
		}
	}
	dec := NewContextDecoder(c)
	s, err := NewScheduler(dec, g.vocab, SchedulerConfig{
		Slots:          g.cfg.Slots,
		BatchSize:      g.cfg.BatchSize,
		ContextPerSlot: g.cfg.ContextPerSlot,
		Logger:         g.cfg.Logger,
	})
	if err != nil {
		dec.Close()
		return fmt.Errorf("load generator: context %q: %w", name, err)
	}
	g.contexts[name] = &genContext{dec: dec, sched: s}
	return nil
}

// Info describes the loaded model.
func (g *Generator) Info() ModelInfo {
	i := g.info
	i.Adapters = slices.Clone(i.Adapters)
	return i
}

// Config returns the configuration after defaults.
func (g *Generator) Config() GeneratorConfig { return g.cfg }

// Scheduler returns the scheduler of an adapter's context ("" for the
// base), for statistics.
func (g *Generator) Scheduler(adapter string) (*Scheduler, bool) {
	c, ok := g.contexts[adapter]
	if !ok {
		return nil, false
	}
	return c.sched, true
}

// Tokenize turns text into the model's tokens. addSpecial adds the BOS
// (and whatever else the model adds around a text); parseSpecial reads
// markup like "<start_of_turn>" as the special token it names.
func (g *Generator) Tokenize(text string, addSpecial, parseSpecial bool) ([]int32, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return nil, ErrClosed
	}
	toks, err := g.model.Tokenize(text, addSpecial, parseSpecial)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	return toks, nil
}

// Detokenize turns tokens back into text.
// After Close it returns "".
func (g *Generator) Detokenize(toks []int32) string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return ""
	}
	return g.model.Detokenize(toks)
}

// ChatPrompt renders messages with the model's own chat template (its Jinja
// source, as Python's jinja2 would; llama.cpp's built-in formatter when
// that fails), ending with an open assistant turn, thinking off. It fails
// with ErrNoChatTemplate when the model has no template.
func (g *Generator) ChatPrompt(msgs []Message) (string, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return "", ErrClosed
	}
	return g.chat.render(g.model, msgs)
}

// Complete runs one generation and returns its result; see
// Scheduler.Submit for streaming, cancellation and errors.
func (g *Generator) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	c, ok := g.contexts[req.Adapter]
	if !ok {
		return Completion{Finish: FinishError}, fmt.Errorf("complete: %w %q (loaded: %v)", ErrUnknownAdapter, req.Adapter, g.info.Adapters)
	}
	toks, err := g.promptTokens(req)
	if err != nil {
		return Completion{Finish: FinishError}, fmt.Errorf("complete: %w", err)
	}
	return c.sched.Submit(ctx, Request{
		Prompt:    toks,
		Sampling:  req.Sampling,
		MaxTokens: req.MaxTokens,
		Stop:      req.Stop,
		Priority:  req.Priority,
		Thinking:  g.chat.thinkingFor(toks),
		OnToken:   req.OnToken,
	})
}

func (g *Generator) promptTokens(req CompletionRequest) ([]int32, error) {
	inputs := 0
	for _, set := range []bool{req.Prompt != "", len(req.Tokens) > 0, len(req.Messages) > 0} {
		if set {
			inputs++
		}
	}
	if inputs != 1 {
		return nil, errors.New("a request needs exactly one of Prompt, Tokens and Messages")
	}
	if len(req.Tokens) > 0 {
		return req.Tokens, nil
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return nil, ErrClosed
	}
	text := req.Prompt
	if len(req.Messages) > 0 {
		var err error
		if text, err = g.chat.render(g.model, req.Messages); err != nil {
			return nil, err
		}
	}
	return g.chat.tokenize(g.model, text)
}

// Close stops every scheduler (failing their requests with ErrClosed) and
// frees the contexts and the model. It is idempotent; afterwards Complete
// returns ErrClosed.
func (g *Generator) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	for _, c := range g.contexts {
		c.sched.Close()
	}
	for _, c := range g.contexts {
		c.dec.Close()
	}
	g.model.Close()
	return nil
}

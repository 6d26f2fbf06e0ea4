package pipeline

import (
	"context"
	"hash/fnv"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/memd-dev/memd/inference"
)

// fakeGen is a Completer whose answers come from a function of the
// request's adapter and user turn. It records every request.
type fakeGen struct {
	info   inference.ModelInfo
	answer func(adapter, user string) (string, error)

	mu    sync.Mutex
	calls []fakeCall
}

type fakeCall struct{ adapter, user string }

func newFakeGen(fp string, answer func(adapter, user string) (string, error)) *fakeGen {
	return &fakeGen{info: inference.ModelInfo{Fingerprint: fp, Name: "fake", Adapters: []string{"memory-chunk"}}, answer: answer}
}

func (g *fakeGen) Info() inference.ModelInfo { return g.info }

func (g *fakeGen) Complete(ctx context.Context, req inference.CompletionRequest) (inference.Completion, error) {
	if err := ctx.Err(); err != nil {
		return inference.Completion{Finish: inference.FinishCancelled}, err
	}
	user := req.Prompt
	if len(req.Messages) > 0 {
		user = req.Messages[len(req.Messages)-1].Content
	}
	g.mu.Lock()
	g.calls = append(g.calls, fakeCall{req.Adapter, user})
	g.mu.Unlock()
	text, err := g.answer(req.Adapter, user)
	return inference.Completion{Text: text, PromptTokens: len(strings.Fields(user)), Generated: len(strings.Fields(text))}, err
}

// callsFor counts requests with adapter whose user turn contains s.
func (g *fakeGen) callsFor(adapter, s string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.calls {
		if c.adapter == adapter && strings.Contains(c.user, s) {
			n++
		}
	}
	return n
}

var blockNumberLine = regexp.MustCompile(`(?m)^\[(\d+)\] (\w+)`)

// promptBlocks lists the block numbers and kinds of a chunk request.
func promptBlocks(user string) (nums []int, kinds []string) {
	for _, m := range blockNumberLine.FindAllStringSubmatch(user, -1) {
		n, _ := strconv.Atoi(m[1])
		nums, kinds = append(nums, n), append(kinds, m[2])
	}
	return nums, kinds
}

// headingChunks answers a chunk request with one chunk per heading, the
// way a good model would; summaries are "summary of <first word>".
func headingChunks(adapter, user string) (string, error) {
	if adapter == "" {
		return "Summary: it is about " + strings.Fields(user)[1] + ".", nil
	}
	nums, kinds := promptBlocks(user)
	var parts []string
	for i, n := range nums {
		if i == 0 || kinds[i] == "heading" {
			parts = append(parts, `{"start":`+strconv.Itoa(n)+`,"end":`+strconv.Itoa(n)+`,"title":"part `+strconv.Itoa(n)+`"}`)
		}
	}
	return "```json\n{\"chunks\":[" + strings.Join(parts, ",") + "]}\n```", nil
}

// fakeEmb is an Embedder whose vectors are a hash of the text. gate, when
// set, holds every call until it is closed.
type fakeEmb struct {
	fp   string
	dim  int
	gate chan struct{}

	mu    sync.Mutex
	sizes []int
	texts []string
}

func (e *fakeEmb) Info() inference.ModelInfo {
	return inference.ModelInfo{Fingerprint: e.fp, Name: "fake-embedder"}
}
func (e *fakeEmb) Dim() int { return e.dim }

func (e *fakeEmb) Embed(ctx context.Context, texts []string, _ inference.Priority) ([]inference.Embedding, error) {
	if e.gate != nil {
		select {
		case <-e.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e.mu.Lock()
	e.sizes = append(e.sizes, len(texts))
	e.texts = append(e.texts, texts...)
	e.mu.Unlock()
	out := make([]inference.Embedding, len(texts))
	for i, t := range texts {
		out[i] = inference.Embedding{Vector: hashVector(e.fp+t, e.dim), Tokens: len(strings.Fields(t))}
	}
	return out, nil
}

func (e *fakeEmb) calls() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int(nil), e.sizes...)
}

func hashVector(s string, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		h := fnv.New32a()
		h.Write([]byte(strconv.Itoa(i) + s))
		v[i] = float32(h.Sum32()%2001)/1000 - 1
		norm += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

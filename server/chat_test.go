package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
)

func chatFake() *apitest.Service {
	f := apitest.New()
	f.Notes["/n/a.md"] = memd.NoteDetail{Path: "/n/a.md", Chunks: []memd.Hit{
		{Folder: "/n", Path: "/n/a.md", StartLine: 2, EndLine: 5, Text: "tomatoes need sun", ChunkID: 11}}}
	f.ChatAnswer = "They need sun [1]."
	return f
}

func TestChatStreamOrderAndClient(t *testing.T) {
	_, c, _ := serve(t, chatFake(), Options{})
	var kinds []string
	var text strings.Builder
	res, err := c.Chat(context.Background(), memd.ChatRequest{Messages: []memd.Message{{Role: "user", Content: "tomatoes"}}},
		func(ev memd.ChatEvent) error {
			kinds = append(kinds, ev.Type)
			text.WriteString(ev.Delta)
			if ev.Type == memd.ChatSources && (len(ev.Sources) != 1 || ev.Sources[0].ChunkID != 11) {
				t.Errorf("sources %+v", ev.Sources)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) < 2 || kinds[0] != memd.ChatSources || kinds[1] != memd.ChatDelta {
		t.Fatalf("events %v; want sources first, then deltas", kinds)
	}
	if text.String() != "They need sun [1]." || res.Message.Content != text.String() || len(res.Citations) != 1 || res.Citations[0].ChunkID != 11 {
		t.Fatalf("streamed %q, result %+v", text.String(), res)
	}
	whole, err := c.Chat(context.Background(), memd.ChatRequest{Messages: []memd.Message{{Role: "user", Content: "tomatoes"}}}, nil)
	if err != nil || whole.Message.Content != res.Message.Content {
		t.Fatalf("non-streamed chat %+v %v", whole, err)
	}
}

func TestChatRefusals(t *testing.T) {
	f := apitest.New()
	_, c, hc := serve(t, f, Options{})
	q := memd.ChatRequest{Messages: []memd.Message{{Role: "user", Content: "x"}}}
	_, err := c.Chat(context.Background(), q, func(memd.ChatEvent) error { return nil })
	var e *memd.Error
	if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable || !errors.Is(err, memd.ErrUnavailable) {
		t.Fatalf("chat without a generator: %v; want 503", err)
	}
	f.ChatHook = func(context.Context, memd.ChatRequest, func(memd.ChatEvent) error) (memd.ChatResult, error) {
		return memd.ChatResult{}, &memd.BusyError{InFlight: 2, RetryAfter: 1500 * time.Millisecond}
	}
	_, err = c.Chat(context.Background(), q, func(memd.ChatEvent) error { return nil })
	if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.RetryAfter != 2*time.Second || !errors.Is(err, memd.ErrBusy) {
		t.Fatalf("busy chat: %#v; want 429 with Retry-After 2", err)
	}
	status, body, _ := call(t, hc, "POST", "/v1/chat", `{"messages":[],"bogus":1}`)
	if status != http.StatusBadRequest || !strings.Contains(body.Message, "bogus") {
		t.Fatalf("unknown field: %d %+v", status, body)
	}
}

func TestChatDisconnectCancels(t *testing.T) {
	f := chatFake()
	ended := make(chan error, 1)
	f.ChatHook = func(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
		if err := sink(memd.ChatEvent{Type: memd.ChatSources, Sources: []memd.Source{}}); err != nil {
			return memd.ChatResult{}, err
		}
		<-ctx.Done()
		ended <- ctx.Err()
		return memd.ChatResult{}, ctx.Err()
	}
	_, c, _ := serve(t, f, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go c.Chat(ctx, memd.ChatRequest{Messages: []memd.Message{{Role: "user", Content: "x"}}}, func(ev memd.ChatEvent) error {
		cancel() // the client goes away once the stream has started
		return nil
	})
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("chat ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the chat's context did not end when its client went away")
	}
}

// sse reads a whole event stream as (event, data) pairs.
func sse(t *testing.T, r io.Reader) [][2]string {
	t.Helper()
	var out [][2]string
	sr := api.NewSSEReader(r)
	for {
		name, data, err := sr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{name, string(data)})
	}
}

func post(t *testing.T, hc *http.Client, path, body string) *http.Response {
	t.Helper()
	resp, err := hc.Post("http://memd"+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestChatCompletions(t *testing.T) {
	f := chatFake()
	_, _, hc := serve(t, f, Options{})
	resp := post(t, hc, "/v1/chat/completions", `{"model":"memd","messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"tomatoes"}]}],"max_tokens":9,"temperature":0.5,"stop":"END","unknown_field":true}`)
	var out oaCompletion
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if out.Object != "chat.completion" || out.Model != "memd" || len(out.Choices) != 1 || *out.Choices[0].Message.Content != "They need sun [1]." ||
		*out.Choices[0].FinishReason != "stop" || out.Usage == nil || out.Memd == nil || len(out.Memd.Citations) != 1 || !strings.HasPrefix(out.ID, "chatcmpl-") {
		t.Fatalf("completion %+v", out)
	}
	r := f.LastChat
	if !r.UsesMemory() || r.MaxTokens != 9 || r.Sampling.Temperature != 0.5 || fmt.Sprint(r.Stop) != "[END]" || r.Messages[0].Role != "system" {
		t.Fatalf("chat request %+v", r)
	}
	for body, wantMemory := range map[string]bool{
		`{"model":"gemma","messages":[{"role":"user","content":"x"}]}`:                        false,
		`{"model":"gemma","messages":[{"role":"user","content":"x"}],"memd":{"k":2}}`:         true,
		`{"model":"memd","messages":[{"role":"user","content":"x"}],"memd":{"memory":false}}`: false,
	} {
		post(t, hc, "/v1/chat/completions", body)
		if f.LastChat.UsesMemory() != wantMemory {
			t.Errorf("%s: memory %v, want %v", body, f.LastChat.UsesMemory(), wantMemory)
		}
	}

	resp = post(t, hc, "/v1/chat/completions", `{"model":"memd","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"tomatoes"}]}`)
	events := sse(t, resp.Body)
	if n := len(events); n < 5 || events[n-1][1] != "[DONE]" {
		t.Fatalf("stream %v; want chunks then [DONE]", events)
	}
	var text strings.Builder
	var first, usage oaCompletion
	json.Unmarshal([]byte(events[0][1]), &first)
	json.Unmarshal([]byte(events[len(events)-2][1]), &usage)
	if first.Choices[0].Delta.Role != "assistant" || first.Memd == nil || len(first.Memd.Sources) != 1 {
		t.Fatalf("first chunk %s; want the role and memd's sources", events[0][1])
	}
	for _, ev := range events[1 : len(events)-2] {
		var c oaCompletion
		if err := json.Unmarshal([]byte(ev[1]), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", ev[1], err)
		}
		if d := c.Choices[0].Delta; d.Content != nil {
			text.WriteString(*d.Content)
		}
	}
	if text.String() != "They need sun [1]." || usage.Usage == nil || len(usage.Choices) != 0 {
		t.Fatalf("streamed %q, usage chunk %s", text.String(), events[len(events)-2][1])
	}

	for body, want := range map[string]string{
		`{"messages":[{"role":"user","content":"x"}],"n":2}`:                             `"n"`,
		`{"messages":[{"role":"tool","content":"x"}]}`:                                   "role",
		`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}`: "image_url",
		`not json`: "not valid JSON",
	} {
		status, e, _ := call(t, hc, "POST", "/v1/chat/completions", body)
		if status != 400 || !strings.Contains(e.Message, want) {
			t.Errorf("%s: %d %v; want 400 naming %s", body, status, e, want)
		}
	}
}

func TestEmbeddingsAndModels(t *testing.T) {
	f := apitest.New()
	_, _, hc := serve(t, f, Options{})
	if status, e, _ := call(t, hc, "POST", "/v1/embeddings", `{"input":"x"}`); status != 503 || e.Code != memd.CodeUnavailable {
		t.Fatalf("embeddings without an embedder: %d %+v", status, e)
	}
	f.EmbedHook = func(_ context.Context, texts []string) (memd.EmbedResult, error) {
		res := memd.EmbedResult{Model: "emb", Tokens: 3 * len(texts)}
		for range texts {
			res.Vectors = append(res.Vectors, []float32{1, 0.5})
		}
		return res, nil
	}
	var out struct {
		Data []struct {
			Index     int
			Embedding json.RawMessage
		}
		Model string
		Usage oaEmbedUsage
	}
	resp := post(t, hc, "/v1/embeddings", `{"input":["a","b"],"model":"x"}`)
	json.NewDecoder(resp.Body).Decode(&out)
	if len(out.Data) != 2 || string(out.Data[1].Embedding) != "[1,0.5]" || out.Data[1].Index != 1 || out.Usage.TotalTokens != 6 {
		t.Fatalf("embeddings %+v", out)
	}
	resp = post(t, hc, "/v1/embeddings", `{"input":"a","encoding_format":"base64"}`)
	json.NewDecoder(resp.Body).Decode(&out)
	if want := `"` + base64Floats([]float32{1, 0.5}) + `"`; string(out.Data[0].Embedding) != want || want != `"AACAPwAAAD8="` {
		t.Fatalf("base64 embedding %s, want %s", out.Data[0].Embedding, want)
	}
	if status, _, _ := call(t, hc, "POST", "/v1/embeddings", `{"input":[[1,2]]}`); status != 400 {
		t.Fatalf("token input: %d; want 400", status)
	}

	f.ModelList = []memd.Model{{ID: "memd", Role: "memd"}, {ID: "gemma", Role: "generator"}}
	resp, err := hc.Get("http://memd/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list oaModelList
	json.NewDecoder(resp.Body).Decode(&list)
	if list.Object != "list" || len(list.Data) != 2 || list.Data[1].ID != "gemma" || list.Data[1].Object != "model" {
		t.Fatalf("models %+v", list)
	}
	if status, _, _ := call(t, hc, "GET", "/v1/models/gemma", ""); status != 200 {
		t.Fatalf("GET /v1/models/gemma: %d", status)
	}
	if status, _, _ := call(t, hc, "GET", "/v1/models/nope", ""); status != 404 {
		t.Fatalf("GET /v1/models/nope: %d", status)
	}
}

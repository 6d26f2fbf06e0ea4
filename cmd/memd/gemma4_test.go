package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/server"
)

// thinkingMarks are Gemma 4's turn and thinking delimiters: none may reach
// an answer, a summary or a chat delta.
var thinkingMarks = []string{"<|channel>", "<channel|>", "<|turn>", "<turn|>"}

func checkNoMarks(t *testing.T, what, text string) {
	t.Helper()
	for _, m := range thinkingMarks {
		if strings.Contains(text, m) {
			t.Errorf("%s holds %s: %q", what, m, text)
		}
	}
}

// TestGemma4ThroughDaemon runs every model stage of the real daemon on a
// model that llama.cpp loads as a Gemma 4 (random weights, the real Gemma
// 4 tokenizer and chat template, a LoRA adapter for the chunk stage) and an
// EmbeddingGemma embedder over the same vocabulary: chunking, summaries,
// embeddings, hybrid recall, and chat streamed over SSE, the websocket and
// the OpenAI route. With Gemma 4's template llama.cpp's own formatter
// refuses, chat answered 500 before memd rendered templates itself.
func TestGemma4ThroughDaemon(t *testing.T) {
	needLibrary(t)
	src := llamatest.Source(t)
	dir := tempDir(t)
	vocab := filepath.Join(src, "models", "ggml-vocab-gemma-4.gguf")
	cfg := testmodel.Gemma4Config{VocabPath: vocab, Seed: 11}
	gen, err := testmodel.WriteGemma4(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lora, err := testmodel.WriteGemma4LoRA(dir, cfg, testmodel.LoRAConfig{Seed: 12, Rank: 8, Alpha: 512})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := testmodel.WriteEmbeddingGemma(dir, testmodel.EmbedderConfig{VocabPath: vocab, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	e := &chatEnv{data: filepath.Join(dir, "data"), sock: filepath.Join(dir, "memd.sock"), notes: filepath.Join(dir, "notes")}
	os.MkdirAll(e.notes, 0o700)
	for name, text := range chatNotes {
		os.WriteFile(filepath.Join(e.notes, name), []byte(text), 0o600)
	}
	e.d = startDaemon(t, e.data, e.sock, "--generator", gen, "--adapter", "memory-chunk="+lora, "--embedder", emb, "--threads", "1")
	e.hc = unixClient(t, e.sock)
	if _, err := memctl(t, e.data, e.sock, "add", "--wait", e.notes); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, e.d.client, 5*time.Minute)
	ctx := context.Background()

	t.Run("index", func(t *testing.T) {
		st, err := e.d.client.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Notes != len(chatNotes) || st.Chunker.Heuristic != 0 || st.Chunker.Model+st.Chunker.Fallback != len(chatNotes) || st.Vectors < st.Chunks {
			t.Fatalf("status: %d notes, chunker %+v, %d vectors for %d chunks; want every note through the model chunker and embedded", st.Notes, st.Chunker, st.Vectors, st.Chunks)
		}
		for name := range chatNotes {
			n, err := e.d.client.Note(ctx, filepath.Join(e.notes, name))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(n.Summary) == "" {
				t.Errorf("%s has no summary: the summary stage did not answer", name)
			}
			checkNoMarks(t, name+"'s summary", n.Summary)
			for _, c := range n.Chunks {
				checkNoMarks(t, name+"'s chunk", c.Text)
			}
		}
	})

	t.Run("hybrid recall", func(t *testing.T) {
		res, err := e.d.client.Recall(ctx, memd.RecallRequest{Query: "water the tomatoes", Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || !slices.ContainsFunc(res.Hits[0].Why, func(r memd.Reason) bool { return r.List == "vector" }) {
			t.Fatalf("hits %+v; want the vector list among the reasons", res.Hits)
		}
	})

	chat := `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"when do I water the tomatoes?"}],"max_tokens":12`
	t.Run("sse", func(t *testing.T) {
		resp := e.post(t, ctx, memd.RouteChat, chat+`,"stream":true}`)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		events := readSSE(t, resp.Body, nil)
		if len(events) < 2 || events[0].name != memd.ChatSources || events[len(events)-1].name != memd.ChatDone {
			t.Fatalf("events %v", events)
		}
		var text strings.Builder
		for _, ev := range events[1 : len(events)-1] {
			var d struct{ Text string }
			json.Unmarshal([]byte(ev.data), &d)
			checkNoMarks(t, "a delta", d.Text)
			text.WriteString(d.Text)
		}
		var res memd.ChatResult
		json.Unmarshal([]byte(events[len(events)-1].data), &res)
		if res.Message.Content != text.String() || res.Usage.CompletionTokens == 0 {
			t.Fatalf("streamed %q, result %+v", text.String(), res)
		}
		checkNoMarks(t, "the answer", res.Message.Content)
	})

	t.Run("websocket", func(t *testing.T) {
		ws := e.dialWS(t)
		wsWrite(t, ws, `{"jsonrpc":"2.0","id":1,"method":"chat","params":`+chat+`}}`)
		var text strings.Builder
		for {
			m := wsReadMsg(t, ws)
			if m.Error != nil {
				t.Fatalf("error %+v", m.Error)
			}
			if m.Method == server.NotifyChatDelta {
				var d struct{ Text string }
				json.Unmarshal(m.Params, &d)
				text.WriteString(d.Text)
				continue
			}
			if m.Result != nil {
				var res memd.ChatResult
				json.Unmarshal(m.Result, &res)
				if res.Message.Content != text.String() {
					t.Fatalf("streamed %q, result %q", text.String(), res.Message.Content)
				}
				checkNoMarks(t, "the answer", res.Message.Content)
				return
			}
		}
	})

	t.Run("openai", func(t *testing.T) {
		resp := e.post(t, ctx, memd.RouteChatCompletions, `{"model":"memd","stream":true,"max_tokens":12,"messages":[{"role":"user","content":"tomatoes?"}]}`)
		defer resp.Body.Close()
		events := readSSE(t, resp.Body, nil)
		if n := len(events); n < 3 || events[n-1].data != "[DONE]" {
			t.Fatalf("stream %v", events)
		}
		for _, ev := range events {
			checkNoMarks(t, "a chunk", ev.data)
		}
	})
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference/llama/llamatest"
	"github.com/memd-dev/memd/inference/runtime"
)

// needLibrary skips a test when memd would find no llama.cpp library
// (runtime.Find: MEMD_LLAMA_LIB, else `memd runtime install`'s package).
func needLibrary(t *testing.T) {
	t.Helper()
	if _, err := runtime.Find(runtime.Options{}); err != nil {
		t.Skipf("no llama.cpp library: %v", err)
	}
}

// TestCompletionsStories260K drives a real trained model through the
// daemon's OpenAI raw-prompt route: greedy, its continuation is the one
// llama2.c documents, whole and streamed; chat on it (it has no template)
// is a 400 that names the route to use instead.
func TestCompletionsStories260K(t *testing.T) {
	needLibrary(t)
	model := llamatest.Stories260K(t)
	dir := tempDir(t)
	e := &chatEnv{data: filepath.Join(dir, "data"), sock: filepath.Join(dir, "memd.sock")}
	e.d = startDaemon(t, e.data, e.sock, "--generator", model, "--threads", "1")
	e.hc = unixClient(t, e.sock)
	body := `{"model":"stories","prompt":"` + llamatest.StoriesPrompt + `","max_tokens":80,"temperature":0}`

	resp := e.post(t, context.Background(), memd.RouteCompletions, body)
	var out struct {
		Object  string `json:"object"`
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	decodeResponse(t, resp, http.StatusOK, &out)
	if out.Object != "text_completion" || len(out.Choices) != 1 || out.Usage.CompletionTokens != 80 {
		t.Fatalf("answer %+v", out)
	}
	text := out.Choices[0].Text
	if !strings.HasPrefix(text, llamatest.StoriesContinuation) {
		t.Fatalf("continuation through memd:\n got %q\nwant %q…", text, llamatest.StoriesContinuation)
	}

	resp = e.post(t, context.Background(), memd.RouteCompletions, strings.Replace(body, "{", `{"stream":true,`, 1))
	defer resp.Body.Close()
	var streamed strings.Builder
	done := false
	for _, ev := range readSSE(t, resp.Body, nil) {
		if ev.data == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			Choices []struct {
				Text         string  `json:"text"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev.data), &c); err != nil || len(c.Choices) != 1 {
			t.Fatalf("chunk %q: %v", ev.data, err)
		}
		streamed.WriteString(c.Choices[0].Text)
	}
	if !done || streamed.String() != text {
		t.Fatalf("stream (done %v) gave %q, the whole answer %q", done, streamed.String(), text)
	}

	resp = e.post(t, context.Background(), memd.RouteChat, `{"messages":[{"role":"user","content":"hi"}],"memory":false}`)
	var failed memd.ErrorBody
	decodeResponse(t, resp, http.StatusBadRequest, &failed)
	if !strings.Contains(failed.Error.Message, "no chat template") || !strings.Contains(failed.Error.Message, memd.RouteCompletions) {
		t.Fatalf("chat on a base model: %+v", failed.Error)
	}
}

func decodeResponse(t *testing.T, resp *http.Response, status int, v any) {
	t.Helper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/server"
)

// These tests run chat through the real daemon with the generated
// generator of inference/testmodel, whose answer and citation are known.
// They need MEMD_LLAMA_LIB, the folder holding libllama.

const chatAnswer = testmodel.ChatAnswer

// chatNotes are short: the bigram vocabulary spells most words byte by
// byte, and its context is 512 tokens.
var chatNotes = map[string]string{
	"garden.md":  "# Tomatoes\n\nwater the tomatoes twice a week\n",
	"compost.md": "# Compost\n\nturn the compost heap each week\n",
	"work.md":    "# Work\n\nthe report is due on Friday\n",
}

// chatEnv is a daemon with the chat model and a small folder of notes.
type chatEnv struct {
	d          *daemon
	data, sock string
	notes      string
	hc         *http.Client
}

func startChatDaemon(t *testing.T, withModel bool, extra ...string) *chatEnv {
	t.Helper()
	if withModel && os.Getenv("MEMD_LLAMA_LIB") == "" {
		t.Skip("MEMD_LLAMA_LIB is not set")
	}
	dir := tempDir(t)
	e := &chatEnv{data: filepath.Join(dir, "data"), sock: filepath.Join(dir, "memd.sock"), notes: filepath.Join(dir, "notes")}
	os.MkdirAll(e.notes, 0o700)
	for name, text := range chatNotes {
		os.WriteFile(filepath.Join(e.notes, name), []byte(text), 0o600)
	}
	if withModel {
		model, err := testmodel.WriteChatModel(dir)
		if err != nil {
			t.Fatal(err)
		}
		extra = append([]string{"--generator", model, "--threads", "1"}, extra...)
	}
	e.d = startDaemon(t, e.data, e.sock, extra...)
	if _, err := memctl(t, e.data, e.sock, "add", "--wait", e.notes); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, e.d.client, time.Minute)
	e.hc = unixClient(t, e.sock)
	return e
}

// unixClient is an HTTP client that dials memd's socket.
func unixClient(t *testing.T, sock string) *http.Client {
	d := &net.Dialer{}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", sock)
	}}}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

func (e *chatEnv) post(t *testing.T, ctx context.Context, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://memd"+path, strings.NewReader(body))
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

type sseEvent struct{ name, data string }

// readSSE reads events until the stream ends or stop says so.
func readSSE(t *testing.T, r io.Reader, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var out []sseEvent
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
				if stop != nil && stop(cur) {
					return out
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[len("data: "):]
		}
	}
	return out
}

// checkCitation fails unless c names a chunk the daemon holds, at lines
// of its note that hold the chunk's text.
func checkCitation(t *testing.T, c *api.Client, cit memd.Citation, src memd.Source) {
	t.Helper()
	n, err := c.Note(context.Background(), cit.Path)
	if err != nil {
		t.Fatalf("cited note %s: %v", cit.Path, err)
	}
	i := slices.IndexFunc(n.Chunks, func(h memd.Hit) bool { return h.ChunkID == cit.ChunkID })
	if i < 0 {
		t.Fatalf("citation %+v names chunk %d, which %s does not hold", cit, cit.ChunkID, cit.Path)
	}
	if h := n.Chunks[i]; h.StartLine != cit.StartLine || h.EndLine != cit.EndLine || h.Text != src.Text {
		t.Fatalf("citation %+v does not match its chunk %+v", cit, h)
	}
	checkHitLines(t, n.Chunks[i], strings.Fields(src.Text)[len(strings.Fields(src.Text))-1])
}

func TestChatThroughDaemon(t *testing.T) {
	emb, err := testmodel.WriteEmbedder(tempDir(t), testmodel.Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	e := startChatDaemon(t, true, "--embedder", emb.Path)
	ctx := context.Background()
	garden := filepath.Join(e.notes, "garden.md")

	t.Run("sse", func(t *testing.T) {
		resp := e.post(t, ctx, "/v1/chat", `{"messages":[{"role":"user","content":"water tomatoes?"}],"stop":["."],"max_tokens":8,"stream":true}`)
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		events := readSSE(t, resp.Body, nil)
		if len(events) < 3 || events[0].name != "sources" || events[len(events)-1].name != "done" {
			t.Fatalf("events %v; want sources, deltas, done", events)
		}
		var text strings.Builder
		for _, ev := range events[1 : len(events)-1] {
			if ev.name != "delta" {
				t.Fatalf("event %v between sources and done", ev)
			}
			var d struct{ Text string }
			json.Unmarshal([]byte(ev.data), &d)
			text.WriteString(d.Text)
		}
		var res memd.ChatResult
		if err := json.Unmarshal([]byte(events[len(events)-1].data), &res); err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(text.String()) != chatAnswer || res.Message.Content != text.String() || res.Finish != memd.FinishStop {
			t.Fatalf("streamed %q, result %+v", text.String(), res)
		}
		if len(res.Sources) == 0 || res.Sources[0].Path != garden {
			t.Fatalf("sources %+v (warnings %q, usage %+v); want the tomato note first", res.Sources, res.Warnings, res.Usage)
		}
		if len(res.Citations) != 1 || res.Citations[0].N != 1 || res.Citations[0].Path != garden {
			t.Fatalf("citations %+v; want [1], the tomato note", res.Citations)
		}
		checkCitation(t, e.d.client, res.Citations[0], res.Sources[0])
		if res.Usage.PromptTokens == 0 || res.Usage.CompletionTokens == 0 || res.Timings.FirstTokenMS <= 0 {
			t.Errorf("usage %+v timings %+v", res.Usage, res.Timings)
		}
	})

	t.Run("memctl", func(t *testing.T) {
		out, err := memctl(t, e.data, e.sock, "chat", "--max-tokens", "8", "water tomatoes?")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.HasPrefix(lines[0], chatAnswer) || !slices.ContainsFunc(lines, func(l string) bool {
			return regexp.MustCompile(`^` + regexp.QuoteMeta(garden) + `:\d+: \[1\]`).MatchString(l)
		}) {
			t.Fatalf("memctl chat printed:\n%s\nwant the answer, then %s:LINE: [1]", out, garden)
		}
		out, err = memctl(t, e.data, e.sock, "chat", "--json", "--max-tokens", "3", "tomatoes")
		var res memd.ChatResult
		if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Usage.CompletionTokens != 3 || res.Finish != memd.FinishLength {
			t.Fatalf("chat --json --max-tokens 3: %v\n%s", err, out)
		}
	})

	t.Run("openai", func(t *testing.T) {
		resp := e.post(t, ctx, "/v1/chat/completions", `{"model":"memd","messages":[{"role":"user","content":"watering tomatoes"}],"stop":".","max_tokens":8}`)
		defer resp.Body.Close()
		var out struct {
			Object  string
			Choices []struct {
				Message      struct{ Content string }
				FinishReason string `json:"finish_reason"`
			}
			Usage struct {
				TotalTokens int `json:"total_tokens"`
			}
			Memd struct{ Citations []memd.Citation }
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v", resp.StatusCode, err)
		}
		if out.Object != "chat.completion" || strings.TrimSpace(out.Choices[0].Message.Content) != chatAnswer ||
			out.Choices[0].FinishReason != "stop" || out.Usage.TotalTokens == 0 || len(out.Memd.Citations) != 1 {
			t.Fatalf("completion %+v", out)
		}
		resp = e.post(t, ctx, "/v1/chat/completions", `{"model":"bigram","stream":true,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
		defer resp.Body.Close()
		events := readSSE(t, resp.Body, nil)
		if n := len(events); n < 3 || events[n-1].data != "[DONE]" || !strings.Contains(events[n-2].data, `"finish_reason":"length"`) {
			t.Fatalf("stream %v", events)
		}
	})

	t.Run("models and embeddings", func(t *testing.T) {
		resp, err := e.hc.Get("http://memd/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"id":"memd"`) || !strings.Contains(string(body), `"id":"bigram"`) {
			t.Fatalf("models %s", body)
		}
		resp = e.post(t, ctx, "/v1/embeddings", `{"input":["tomatoes in the sun","compost"],"model":"embedder"}`)
		var emb struct {
			Data []struct {
				Index     int
				Embedding []float64
			}
			Usage struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&emb)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(emb.Data) != 2 || emb.Data[1].Index != 1 || emb.Usage.TotalTokens == 0 {
			t.Fatalf("embeddings: %d %v %+v", resp.StatusCode, err, emb)
		}
		var norm float64
		for _, x := range emb.Data[0].Embedding {
			norm += x * x
		}
		if len(emb.Data[0].Embedding) != 64 || math.Abs(norm-1) > 1e-3 {
			t.Fatalf("embedding of %d values with squared norm %v; want the embedder's 64, unit length", len(emb.Data[0].Embedding), norm)
		}
	})

	t.Run("websocket", func(t *testing.T) {
		ws := e.dialWS(t)
		// Two chats in flight on one connection, then a bad frame.
		wsWrite(t, ws, `{"jsonrpc":"2.0","id":1,"method":"chat","params":{"messages":[{"role":"user","content":"watering tomatoes"}],"stop":["."],"max_tokens":8}}`)
		wsWrite(t, ws, `{"jsonrpc":"2.0","id":2,"method":"chat","params":{"messages":[{"role":"user","content":"compost heap"}],"stop":["."],"memory":false}}`)
		wsWrite(t, ws, `{"jsonrpc":"2.0","id":3,"method":"recall"`)
		results := map[string]json.RawMessage{}
		sawSources := map[string]bool{}
		var parseErr bool
		for len(results) < 2 || !parseErr {
			m := wsReadMsg(t, ws)
			var p struct{ ID json.RawMessage }
			json.Unmarshal(m.Params, &p)
			switch {
			case m.Method == server.NotifyChatSources:
				sawSources[string(p.ID)] = true
			case m.Method == server.NotifyChatDelta:
				if !sawSources[string(p.ID)] {
					t.Fatalf("a delta of chat %s came before its sources", p.ID)
				}
			case m.Error != nil && m.Error.Code == server.RPCParseError:
				parseErr = true
			case m.Error != nil:
				t.Fatalf("error %+v", m.Error)
			default:
				results[string(m.ID)] = m.Result
			}
		}
		for id, raw := range results {
			var res memd.ChatResult
			json.Unmarshal(raw, &res)
			if strings.TrimSpace(res.Message.Content) != chatAnswer {
				t.Errorf("chat %s answered %q", id, res.Message.Content)
			}
		}
		wsWrite(t, ws, `{"jsonrpc":"2.0","id":4,"method":"recall","params":{"query":"compost"}}`)
		if m := wsReadMsg(t, ws); m.Error != nil || !strings.Contains(string(m.Result), "compost.md") {
			t.Fatalf("recall after a malformed frame: %+v %s", m.Error, m.Result)
		}

		// An oversized frame closes that connection only.
		other := e.dialWS(t)
		huge := `{"jsonrpc":"2.0","id":5,"method":"recall","params":{"query":"` + strings.Repeat("x", 2<<20) + `"}}`
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = ws.Write(wctx, websocket.MessageText, []byte(huge))
		if _, _, err := ws.Read(wctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
			t.Fatalf("after an oversized frame: %v; want close 1009", err)
		}
		wsWrite(t, other, `{"jsonrpc":"2.0","id":1,"method":"status"}`)
		if m := wsReadMsg(t, other); m.Error != nil || !strings.Contains(string(m.Result), `"notes":3`) {
			t.Fatalf("status on the other connection: %+v %s", m.Error, m.Result)
		}
	})
}

func (e *chatEnv) dialWS(t *testing.T) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://memd/v1/ws", &websocket.DialOptions{HTTPClient: e.hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

type wsMsg struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *server.RPCError
}

func wsWrite(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func wsReadMsg(t *testing.T, ws *websocket.Conn) wsMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m wsMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return m
}

func TestChatWithoutGeneratorDaemon(t *testing.T) {
	e := startChatDaemon(t, false)
	ctx := context.Background()
	for path, body := range map[string]string{
		"/v1/chat":             `{"messages":[{"role":"user","content":"tomatoes"}],"stream":true}`,
		"/v1/chat/completions": `{"model":"memd","messages":[{"role":"user","content":"tomatoes"}]}`,
	} {
		resp := e.post(t, ctx, path, body)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), "--generator") || !strings.Contains(string(raw), "memctl model set generator") {
			t.Errorf("%s without a generator: %d %s; want 503 saying how to configure one", path, resp.StatusCode, raw)
		}
	}
	resp := e.post(t, ctx, "/v1/embeddings", `{"input":"x"}`)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), "--embedder") {
		t.Errorf("embeddings without an embedder: %d %s", resp.StatusCode, raw)
	}
	if _, err := memctl(t, e.data, e.sock, "chat", "tomatoes"); err == nil || !strings.Contains(err.Error(), "--generator") {
		t.Errorf("memctl chat without a generator: %v", err)
	}
	if hits := recallJSON(t, e.data, e.sock, "tomatoes"); len(hits) == 0 {
		t.Error("recall stopped working without a generator")
	}
	ws := e.dialWS(t)
	wsWrite(t, ws, `{"jsonrpc":"2.0","id":1,"method":"chat","params":{"messages":[{"role":"user","content":"x"}]}}`)
	if m := wsReadMsg(t, ws); m.Error == nil || !strings.Contains(m.Error.Message, "--generator") {
		t.Errorf("websocket chat without a generator: %+v", m)
	}
}

// longChat is a plain chat that generates until max_tokens, about 500
// tokens: long enough to be cut off.
const longChat = `{"messages":[{"role":"user","content":"hi"}],"memory":false,"max_tokens":490,"stream":true}`

func TestChatCancelOnDisconnectAndLimit(t *testing.T) {
	e := startChatDaemon(t, true, "--max-chats", "1", "--slots", "1")
	ctx := context.Background()

	// How long the long chat takes when nobody cancels it.
	start := time.Now()
	resp := e.post(t, ctx, "/v1/chat", longChat)
	events := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	full := time.Since(start)
	var res memd.ChatResult
	if err := json.Unmarshal([]byte(events[len(events)-1].data), &res); err != nil || res.Usage.CompletionTokens < 400 {
		t.Fatalf("long chat: %v %+v", err, res.Usage)
	}

	// While one chat streams, the limit of one refuses another with 429.
	sctx, cancel := context.WithCancel(ctx)
	resp = e.post(t, sctx, "/v1/chat", longChat)
	readSSE(t, resp.Body, func(ev sseEvent) bool { return ev.name == "delta" })
	busy := e.post(t, ctx, "/v1/chat", `{"messages":[{"role":"user","content":"hi"}],"memory":false,"max_tokens":1}`)
	raw, _ := io.ReadAll(busy.Body)
	busy.Body.Close()
	if busy.StatusCode != http.StatusTooManyRequests || busy.Header.Get("Retry-After") == "" || !strings.Contains(string(raw), `"code":"busy"`) {
		t.Fatalf("chat over the limit: %d %q %s; want 429 with Retry-After", busy.StatusCode, busy.Header.Get("Retry-After"), raw)
	}

	// The client goes away mid-stream: its generation stops and frees the
	// one place, long before it would have finished.
	cancel()
	resp.Body.Close()
	gone := time.Now()
	for {
		r := e.post(t, ctx, "/v1/chat", `{"messages":[{"role":"user","content":"hi"}],"memory":false,"max_tokens":1}`)
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode == 200 {
			break
		}
		if r.StatusCode != http.StatusTooManyRequests || time.Since(gone) > full {
			t.Fatalf("after the disconnect: status %d after %v; the long chat (%v uncancelled) still holds its place", r.StatusCode, time.Since(gone), full)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if freed := time.Since(gone); freed > full/2 {
		t.Fatalf("the place was freed %v after the disconnect; an uncancelled chat takes %v", freed, full)
	}
	t.Logf("uncancelled chat %v; place freed %v after the disconnect", full, time.Since(gone))
}

// TestChatConcurrent runs chats side by side over SSE and websocket, more
// than the generator's slots, so they queue and batch; under -race the
// daemon runs with the race detector.
func TestChatConcurrent(t *testing.T) {
	e := startChatDaemon(t, true, "--slots", "4", "--max-chats", "32")
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- e.oneChat(i%2 == 0, fmt.Sprintf("watering tomatoes %d", i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// oneChat asks over SSE or over its own websocket and checks the answer.
func (e *chatEnv) oneChat(overWS bool, q string) error {
	body := fmt.Sprintf(`{"messages":[{"role":"user","content":%q}],"stop":["."],"max_tokens":8}`, q)
	var res memd.ChatResult
	if overWS {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, "ws://memd/v1/ws", &websocket.DialOptions{HTTPClient: e.hc})
		if err != nil {
			return err
		}
		defer ws.CloseNow()
		if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"chat","params":`+body+`}`)); err != nil {
			return err
		}
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return err
			}
			var m wsMsg
			json.Unmarshal(data, &m)
			if m.Error != nil {
				return m.Error
			}
			if m.Method == "" {
				json.Unmarshal(m.Result, &res)
				break
			}
		}
	} else {
		r, err := api.NewClient(e.sock).Chat(context.Background(), chatRequest(body), func(memd.ChatEvent) error { return nil })
		if err != nil {
			return err
		}
		res = r
	}
	if strings.TrimSpace(res.Message.Content) != chatAnswer || len(res.Citations) != 1 || len(res.Sources) == 0 {
		return fmt.Errorf("chat %q (websocket %v): %+v", q, overWS, res)
	}
	return nil
}

func chatRequest(body string) memd.ChatRequest {
	var r memd.ChatRequest
	json.Unmarshal([]byte(body), &r)
	return r
}

var tcpAddr = regexp.MustCompile(`serving on loopback TCP too" addr=(\S+)`)

func TestTCPListener(t *testing.T) {
	e := startChatDaemon(t, false, "--tcp-listen", "127.0.0.1:0")
	m := tcpAddr.FindStringSubmatch(e.d.log.String())
	if m == nil {
		t.Fatalf("memd did not log its TCP address:\n%s", e.d.log)
	}
	tokPath := filepath.Join(e.data, server.TokenFile)
	fi, err := os.Stat(tokPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v %v; want mode 0600", fi, err)
	}
	tok, _ := os.ReadFile(tokPath)
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://"+m[1]+"/v1/status", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(""); s != http.StatusUnauthorized {
		t.Errorf("no token: %d", s)
	}
	if s := get("Bearer " + strings.Repeat("a", 64)); s != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", s)
	}
	if s := get("Bearer " + string(bytes.TrimSpace(tok))); s != http.StatusOK {
		t.Errorf("the token: %d", s)
	}
	if err := e.d.stop(); err != nil {
		t.Fatal(err)
	}

	d := launch(t, e.data, e.sock, "--tcp-listen", "0.0.0.0:7077")
	select {
	case <-d.exited:
		if d.err == nil || !strings.Contains(d.log.String(), "loopback") {
			t.Fatalf("memd on a non-loopback address: exit %v\n%s", d.err, d.log)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("memd started on a non-loopback TCP address")
	}
	if errors.Is(d.err, nil) {
		t.Fatal("unreachable")
	}
}

package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/memd-dev/memd"
)

// rpcMsg is any message the server sends.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

func dialWS(t *testing.T, hc *http.Client, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws://memd/v1/ws", &websocket.DialOptions{HTTPClient: hc, HTTPHeader: header})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial /v1/ws: %v (status %d)", err, status)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func wsSend(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func wsRead(t *testing.T, ws *websocket.Conn) rpcMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m rpcMsg
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return m
}

// wsUntil reads until the answer to id, returning the notifications before it.
func wsUntil(t *testing.T, ws *websocket.Conn, id string) ([]rpcMsg, rpcMsg) {
	t.Helper()
	var notes []rpcMsg
	for {
		m := wsRead(t, ws)
		if m.Method == "" && string(m.ID) == id {
			return notes, m
		}
		notes = append(notes, m)
	}
}

func TestWSMethods(t *testing.T) {
	f := chatFake()
	_, _, hc := serve(t, f, Options{})
	ws := dialWS(t, hc, nil)

	wsSend(t, ws, `{"jsonrpc":"2.0","id":1,"method":"recall","params":{"query":"tomatoes"}}`)
	if _, m := wsUntil(t, ws, "1"); m.Error != nil || !strings.Contains(string(m.Result), `"chunk_id":11`) {
		t.Fatalf("recall answer %+v %s", m.Error, m.Result)
	}
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"s","method":"status"}`)
	if _, m := wsUntil(t, ws, `"s"`); m.Error != nil || !strings.Contains(string(m.Result), `"version":"apitest"`) {
		t.Fatalf("status answer %+v %s", m.Error, m.Result)
	}

	wsSend(t, ws, `{"jsonrpc":"2.0","id":7,"method":"chat","params":{"messages":[{"role":"user","content":"tomatoes"}]}}`)
	notes, m := wsUntil(t, ws, "7")
	if m.Error != nil || len(notes) < 2 || notes[0].Method != NotifyChatSources {
		t.Fatalf("chat: notifications %+v answer %+v", notes, m)
	}
	var text strings.Builder
	for _, n := range notes[1:] {
		var d wsDelta
		json.Unmarshal(n.Params, &d)
		if n.Method != NotifyChatDelta || string(d.ID) != "7" {
			t.Fatalf("notification %s %s after the sources; want chat.delta for id 7", n.Method, n.Params)
		}
		text.WriteString(d.Text)
	}
	var res memd.ChatResult
	json.Unmarshal(m.Result, &res)
	if text.String() != res.Message.Content || res.Message.Content != "They need sun [1]." {
		t.Fatalf("deltas %q, result %q", text.String(), res.Message.Content)
	}

	// Errors answer and the connection lives.
	for msg, code := range map[string]int{
		`{not json`: RPCParseError,
		`[{"jsonrpc":"2.0","id":1,"method":"status"}]`:                       RPCInvalidRequest,
		`{"jsonrpc":"1.0","id":2,"method":"status"}`:                         RPCInvalidRequest,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"status"}`:                   RPCInvalidRequest,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`:                           RPCMethodNotFound,
		`{"jsonrpc":"2.0","id":4,"method":"recall","params":{"query":""}}`:   RPCInvalidParams,
		`{"jsonrpc":"2.0","id":5,"method":"recall","params":{"qery":"x"}}`:   RPCInvalidParams,
		`{"jsonrpc":"2.0","id":6,"method":"chat","params":{"messages":"x"}}`: RPCInvalidParams,
	} {
		wsSend(t, ws, msg)
		if got := wsRead(t, ws); got.Error == nil || got.Error.Code != code {
			t.Errorf("%s: answer %+v; want error %d", msg, got.Error, code)
		}
	}
	wsSend(t, ws, `{"jsonrpc":"2.0","id":9,"method":"status"}`)
	if _, m := wsUntil(t, ws, "9"); m.Error != nil {
		t.Fatalf("status after errors: %+v", m.Error)
	}
	// A notification (no id) gets no answer.
	wsSend(t, ws, `{"jsonrpc":"2.0","method":"status"}`)
	wsSend(t, ws, `{"jsonrpc":"2.0","id":10,"method":"status"}`)
	if m := wsRead(t, ws); string(m.ID) != "10" {
		t.Fatalf("answer %s after a notification; want only the answer to id 10", m.ID)
	}

	f.ChatAnswer = ""
	wsSend(t, ws, `{"jsonrpc":"2.0","id":11,"method":"chat","params":{"messages":[{"role":"user","content":"x"}]}}`)
	if _, m := wsUntil(t, ws, "11"); m.Error == nil || m.Error.Code != RPCServerError || !strings.Contains(string(mustJSON(m.Error.Data)), memd.CodeUnavailable) {
		t.Fatalf("chat without a generator: %+v", m.Error)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestWSConcurrentCancelAndSubscribe(t *testing.T) {
	f := chatFake()
	f.ChatHook = func(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
		sink(memd.ChatEvent{Type: memd.ChatSources, Sources: []memd.Source{}})
		if r.Messages[0].Content == "slow" {
			<-ctx.Done()
			return memd.ChatResult{}, ctx.Err()
		}
		sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: "quick"})
		return memd.ChatResult{Message: memd.Message{Role: "assistant", Content: "quick"}}, nil
	}
	_, _, hc := serve(t, f, Options{})
	ws := dialWS(t, hc, nil)
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"a","method":"chat","params":{"messages":[{"role":"user","content":"slow"}]}}`)
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"a","method":"status"}`)
	for {
		m := wsRead(t, ws)
		if m.Method == "" {
			if m.Error == nil || !strings.Contains(m.Error.Message, "already in flight") {
				t.Fatalf("reused id: %+v", m)
			}
			break
		}
	}
	// A second chat finishes while the first is still running.
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"b","method":"chat","params":{"messages":[{"role":"user","content":"fast"}]}}`)
	if _, m := wsUntil(t, ws, `"b"`); m.Error != nil || !strings.Contains(string(m.Result), "quick") {
		t.Fatalf("second chat %+v %s", m.Error, m.Result)
	}
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"c","method":"cancel","params":{"id":"a"}}`)
	got := map[string]rpcMsg{}
	for len(got) < 2 {
		if m := wsRead(t, ws); m.Method == "" { // the slow chat's notifications may still arrive
			got[string(m.ID)] = m
		}
	}
	if m := got[`"a"`]; m.Error == nil || m.Error.Code != RPCCancelled {
		t.Fatalf("cancelled chat answered %+v", m)
	}
	if m := got[`"c"`]; string(m.Result) != `{"cancelled":true}` {
		t.Fatalf("cancel answered %s", m.Result)
	}

	wsSend(t, ws, `{"jsonrpc":"2.0","id":"sub","method":"subscribe"}`)
	if _, m := wsUntil(t, ws, `"sub"`); string(m.Result) != `{"subscription":"sub"}` {
		t.Fatalf("subscribe answered %s %+v", m.Result, m.Error)
	}
	f.Events <- memd.Event{Type: memd.EventIndexed, Path: "/n/a.md"}
	if m := wsRead(t, ws); m.Method != NotifyIndexEvent || !strings.Contains(string(m.Params), `"/n/a.md"`) {
		t.Fatalf("index event %+v", m)
	}
	wsSend(t, ws, `{"jsonrpc":"2.0","id":"u","method":"unsubscribe","params":{"subscription":"sub"}}`)
	if _, m := wsUntil(t, ws, `"u"`); string(m.Result) != `{"cancelled":true}` {
		t.Fatalf("unsubscribe %s", m.Result)
	}
	select {
	case <-f.Unsubscribed:
	case <-time.After(5 * time.Second):
		t.Fatal("the subscription did not end")
	}
}

func TestWSOversizedFrameClosesOnlyThatConnection(t *testing.T) {
	_, _, hc := serve(t, chatFake(), Options{MaxFrameBytes: 1024})
	big, small := dialWS(t, hc, nil), dialWS(t, hc, nil)
	big.SetReadLimit(1 << 20)
	wsSend(t, big, `{"jsonrpc":"2.0","id":1,"method":"recall","params":{"query":"`+strings.Repeat("x", 4096)+`"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := big.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("after an oversized frame: %v; want close 1009", err)
	}
	wsSend(t, small, `{"jsonrpc":"2.0","id":1,"method":"status"}`)
	if m := wsRead(t, small); m.Error != nil {
		t.Fatalf("other connection: %+v", m.Error)
	}
}

func TestWSSlowReaderIsDropped(t *testing.T) {
	f := chatFake()
	f.ChatHook = func(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
		sink(memd.ChatEvent{Type: memd.ChatSources, Sources: []memd.Source{}})
		chunk := strings.Repeat("z", 16<<10)
		for ctx.Err() == nil {
			if err := sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: chunk}); err != nil {
				return memd.ChatResult{}, err
			}
		}
		return memd.ChatResult{}, ctx.Err()
	}
	_, _, hc := serve(t, f, Options{WSQueue: 8})
	slow, other := dialWS(t, hc, nil), dialWS(t, hc, nil)
	wsSend(t, slow, `{"jsonrpc":"2.0","id":1,"method":"chat","params":{"messages":[{"role":"user","content":"x"}]}}`)
	time.Sleep(200 * time.Millisecond) // the slow client reads nothing meanwhile
	wsSend(t, other, `{"jsonrpc":"2.0","id":1,"method":"status"}`)
	if m := wsRead(t, other); m.Error != nil {
		t.Fatalf("a fast client next to a slow one: %+v", m.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	slow.SetReadLimit(-1)
	for {
		_, _, err := slow.Read(ctx)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			t.Fatal("the slow reader was not dropped")
		}
		if s := websocket.CloseStatus(err); s != -1 && s != websocket.StatusPolicyViolation {
			t.Fatalf("slow reader closed with %v; want 1008 or a cut connection", s)
		}
		break
	}
}

func TestWSOriginAllowList(t *testing.T) {
	_, _, hc := serve(t, chatFake(), Options{AllowedOrigins: []string{"http://localhost:3000"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws://memd/v1/ws", &websocket.DialOptions{HTTPClient: hc,
		HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a page from another origin: %v; want 403", err)
	}
	dialWS(t, hc, http.Header{"Origin": {"http://localhost:3000"}})
}

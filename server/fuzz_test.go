package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
)

// fuzzRoutes are the routes that read a request body, with their method.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", memd.RouteRecall}, {"POST", memd.RouteChat}, {"POST", memd.RouteChatCompletions},
	{"POST", memd.RouteEmbeddings}, {"POST", memd.RouteFolders}, {"DELETE", memd.RouteFolders},
	{"DELETE", memd.RouteNotes}, {"POST", memd.RouteReindex},
}

// FuzzRequestBodies sends every route that reads a body whatever a client
// may send: the answer is a JSON body, and never a 500 (a bug) .
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"query":"bees","k":5,"filters":{"tags":["garden"]}}`, `{"messages":[{"role":"user","content":"hi"}],"stream":true}`,
		`{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":-1}`, `{"input":["a","b"]}`,
		`{"path":"/notes"}`, `{"path":"relative"}`, `[]`, `{"query":"a"} {"query":"b"}`, `{"k":1e400}`, "\x00",
	} {
		f.Add(s, uint8(0))
	}
	svc := apitest.New()
	svc.ChatAnswer = "an answer [1]"
	srv := httptest.NewServer(NewServer(svc, Options{Logger: slog.New(slog.DiscardHandler), ChatTimeout: time.Second}).Handler())
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, body string, route uint8) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		req, _ := http.NewRequest(rt.method, srv.URL+rt.path, strings.NewReader(body))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 && resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s %s with %q: %d %s", rt.method, rt.path, body, resp.StatusCode, raw)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("%s %s with %q: answered %q", rt.method, rt.path, body, ct)
		}
	})
}

// FuzzRPCMessages sends the websocket JSON-RPC endpoint one message of
// anything, then a status request: the connection must stay open and in
// step, answering the status request with its id.
func FuzzRPCMessages(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"recall","params":{"query":"bees"}}`,
		`{"jsonrpc":"2.0","method":"subscribe"}`, `{"jsonrpc":"2.0","id":"x","method":"cancel","params":{"id":"y"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"status"}]`, `{"jsonrpc":"1.0","id":{},"method":""}`, `not json`, ``,
		`{"jsonrpc":"2.0","id":2,"method":"chat","params":{"messages":[{"role":"user","content":"hi"}]}}`,
	} {
		f.Add(s)
	}
	svc := apitest.New()
	svc.ChatAnswer = "an answer"
	srv := httptest.NewServer(NewServer(svc, Options{Logger: slog.New(slog.DiscardHandler)}).Handler())
	f.Cleanup(srv.Close)
	var probes atomic.Int64
	f.Fuzz(func(t *testing.T, msg string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+memd.RouteWS, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		probe := fmt.Sprintf("probe-%d", probes.Add(1))
		if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":"`+probe+`","method":"status"}`)); err != nil {
			t.Fatalf("after %q: %v", msg, err)
		}
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("after %q the connection ended before answering the next request: %v", msg, err)
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(data, &m) == nil && string(m.ID) == `"`+probe+`"` {
				return
			}
		}
	})
}

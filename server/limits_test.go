package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
)

// slowBody sends a request whose body trickles in a byte at a time and
// returns the status memd answers with and how long that took.
func slowBody(t *testing.T, sock, path string, every time.Duration) (int, time.Duration) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"messages":[{"role":"user","content":"hello there"}],"query":"x"}`
	start := time.Now()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: memd\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, len(body))
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			close(answered)
			return
		}
		answered <- resp
	}()
	for i := range len(body) {
		select {
		case resp, ok := <-answered:
			if !ok {
				return 0, time.Since(start)
			}
			return resp.StatusCode, time.Since(start)
		case <-time.After(every):
		}
		if _, err := c.Write([]byte{body[i]}); err != nil {
			break
		}
	}
	select {
	case resp, ok := <-answered:
		if ok {
			return resp.StatusCode, time.Since(start)
		}
	case <-time.After(5 * time.Second):
	}
	return 0, time.Since(start)
}

// TestSlowBodyTimesOut: every route that takes a body answers 408 to one
// that does not arrive within the body timeout; the chat routes once held
// a client sending a byte a second for as long as it liked.
func TestSlowBodyTimesOut(t *testing.T) {
	svc := apitest.New()
	svc.ChatAnswer = "hi"
	_, c, _ := serve(t, svc, Options{BodyTimeout: 300 * time.Millisecond})
	for _, path := range []string{memd.RouteChat, memd.RouteChatCompletions, memd.RouteRecall, memd.RouteReindex} {
		status, took := slowBody(t, c.Socket(), path, 100*time.Millisecond)
		if status != http.StatusRequestTimeout {
			t.Errorf("%s with a body at 10 bytes/s: status %d after %v, want 408", path, status, took)
		}
	}
}

// TestStreamOutlivesBodyTimeout: the body deadline ends with the body; a
// chat that streams for longer than it is not cut.
func TestStreamOutlivesBodyTimeout(t *testing.T) {
	svc := apitest.New()
	svc.ChatHook = func(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
		for range 8 {
			select {
			case <-ctx.Done():
				return memd.ChatResult{}, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			if err := sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: "word "}); err != nil {
				return memd.ChatResult{}, err
			}
		}
		return memd.ChatResult{Message: memd.Message{Role: memd.RoleAssistant, Content: strings.Repeat("word ", 8)}, Finish: memd.FinishStop}, nil
	}
	_, c, _ := serve(t, svc, Options{BodyTimeout: 200 * time.Millisecond})
	deltas := 0
	res, err := c.Chat(context.Background(), memd.ChatRequest{Messages: []memd.Message{{Role: memd.RoleUser, Content: "hi"}}},
		func(ev memd.ChatEvent) error {
			if ev.Type == memd.ChatDelta {
				deltas++
			}
			return nil
		})
	if err != nil || res.Finish != memd.FinishStop || deltas != 8 {
		t.Fatalf("a chat streaming for 800ms under a 200ms body timeout: %+v, %v", res, err)
	}
}

// TestReindexAnswersAtOnce: a reindex that takes long (34s under load) is
// answered 202 at once and goes on; a client that leaves does not cancel
// it or make memd log a failure; a refusal still comes as an error.
func TestReindexAnswersAtOnce(t *testing.T) {
	svc := apitest.New()
	release := make(chan struct{})
	finished := make(chan string, 4)
	svc.ReindexHook = func(ctx context.Context, path string) (int, error) {
		if path == "/elsewhere" {
			return 0, fmt.Errorf("%w: /elsewhere is not in any folder memd indexes", memd.ErrUnknownFolder)
		}
		select {
		case <-release:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		finished <- path
		return 7, nil
	}
	var logs syncBuffer
	_, c, _ := serve(t, svc, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	start := time.Now()
	res, err := c.Reindex(context.Background(), "")
	if err != nil || !res.Started || time.Since(start) > 2*time.Second {
		t.Fatalf("a slow reindex: %+v, %v after %v; want 202 started at once", res, err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = c.Reindex(ctx, "/notes")
	cancel()
	if err == nil {
		t.Fatal("a client that left got an answer")
	}
	close(release)
	for range 2 {
		select {
		case <-finished:
		case <-time.After(5 * time.Second):
			t.Fatal("the reindexes did not go on after their requests ended")
		}
	}
	if _, err := c.Reindex(context.Background(), "/elsewhere"); !errors.Is(err, memd.ErrUnknownFolder) {
		t.Fatalf("reindex of an unknown folder: %v", err)
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Fatalf("memd logged a failure for a client that left:\n%s", logs.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRecallAdmission: with recalls stuck, RecallInFlight run, RecallQueue
// wait, and the rest are refused at once with 429 and Retry-After; when
// the stuck ones end, the waiting ones run.
func TestRecallAdmission(t *testing.T) {
	svc := apitest.New()
	release := make(chan struct{})
	var running, peak atomic.Int32
	svc.RecallHook = func(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		return memd.RecallResult{Hits: []memd.Hit{}}, nil
	}
	_, c, hc := serve(t, svc, Options{RecallInFlight: 3, RecallQueue: 2, RecallWait: 10 * time.Second})
	const clients = 12
	type answer struct {
		status int
		retry  string
	}
	answers := make(chan answer, clients)
	for range clients {
		go func() {
			req, _ := http.NewRequest("POST", "http://memd"+memd.RouteRecall, strings.NewReader(`{"query":"q"}`))
			resp, err := hc.Do(req)
			if err != nil {
				answers <- answer{}
				return
			}
			resp.Body.Close()
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After")}
		}()
	}
	refused := 0
	for range clients - 5 {
		a := <-answers
		if a.status != http.StatusTooManyRequests || a.retry == "" {
			t.Fatalf("with 3 running and 2 waiting, a recall got %d (Retry-After %q), want 429 with Retry-After", a.status, a.retry)
		}
		refused++
	}
	close(release)
	for range 5 {
		if a := <-answers; a.status != http.StatusOK {
			t.Fatalf("a recall admitted got %d", a.status)
		}
	}
	if peak.Load() != 3 {
		t.Fatalf("%d recalls ran at once, want 3", peak.Load())
	}
	if _, err := c.Recall(context.Background(), memd.RecallRequest{Query: "q"}); err != nil {
		t.Fatalf("a recall once the others ended: %v", err)
	}
}

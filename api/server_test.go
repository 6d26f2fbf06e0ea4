package api_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

// The client against memd's own server: answers, errors with their codes
// and Retry-After, a huge answer and a request over the body limit.
func TestClientAgainstServer(t *testing.T) {
	svc := apitest.New()
	huge := strings.Repeat("carbon nanotubes\n", 3<<20) // 51 MB
	svc.Notes["/notes/huge.md"] = memd.NoteDetail{Path: "/notes/huge.md", Chunks: []memd.Hit{{Path: "/notes/huge.md", Text: huge}}}
	sock := servertest.Socket(t, svc)
	c, err := api.Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := c.Note(ctx, "/notes/huge.md")
	if err != nil || len(d.Chunks) != 1 || d.Chunks[0].Text != huge {
		t.Fatalf("a 51 MB note: %d chunks, %v", len(d.Chunks), err)
	}
	_, err = c.Note(ctx, "/notes/none.md")
	var e *memd.Error
	if !errors.As(err, &e) || e.Status != 404 || !errors.Is(err, memd.ErrNotFound) {
		t.Fatalf("a missing note: %v, want a 404 not_found *memd.Error", err)
	}
	links := make([]string, 200_000) // 3 MB of JSON, over the 1 MiB limit
	for i := range links {
		links[i] = "a link to a note"
	}
	if _, err := c.Resolve(ctx, memd.ResolveRequest{Links: links}); !errors.As(err, &e) || e.Code != memd.CodeTooLarge {
		t.Fatalf("a request over the body limit: %v, want a too_large *memd.Error", err)
	}

	svc.RecallHook = func(context.Context, memd.RecallRequest) (memd.RecallResult, error) {
		return memd.RecallResult{}, &memd.BusyError{InFlight: 8, RetryAfter: 1500 * time.Millisecond, Work: "recalls"}
	}
	_, err = c.Recall(ctx, memd.RecallRequest{Query: "x"})
	if !errors.As(err, &e) || e.Status != 429 || e.RetryAfter != 2*time.Second || !errors.Is(err, memd.ErrBusy) {
		t.Fatalf("a busy daemon: %#v, want a 429 busy *memd.Error with RetryAfter 2s", err)
	}
}

// Chat streams through the client as the server sends it, and a client
// that stops reading mid-stream hangs up, which stops the daemon's chat.
func TestChatStreamAgainstServer(t *testing.T) {
	svc := apitest.New()
	svc.ChatAnswer = "tomatoes want water at dawn"
	sock := servertest.Socket(t, svc)
	c := api.NewClient(sock)
	ctx := context.Background()
	req := memd.ChatRequest{Messages: []memd.Message{{Role: memd.RoleUser, Content: "when to water?"}}}

	var types []string
	var text strings.Builder
	res, err := c.Chat(ctx, req, func(ev memd.ChatEvent) error {
		types = append(types, ev.Type)
		text.WriteString(ev.Delta)
		return nil
	})
	if err != nil || text.String() != svc.ChatAnswer || types[0] != memd.ChatSources || len(types) != 6 || res.Model != "apitest" {
		t.Fatalf("streamed chat: events %v, text %q, result %+v, %v", types, text.String(), res, err)
	}
	if res, err := c.Chat(ctx, req, nil); err != nil || res.Message.Content != svc.ChatAnswer {
		t.Fatalf("chat without a stream: %+v, %v", res, err)
	}

	stopped := make(chan struct{})
	svc.ChatHook = func(ctx context.Context, _ memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error) {
		defer close(stopped)
		for ctx.Err() == nil {
			if err := sink(memd.ChatEvent{Type: memd.ChatDelta, Delta: "more "}); err != nil {
				return memd.ChatResult{}, err
			}
			time.Sleep(time.Millisecond)
		}
		return memd.ChatResult{}, ctx.Err()
	}
	errEnough := errors.New("enough")
	n := 0
	_, err = c.Chat(ctx, req, func(memd.ChatEvent) error {
		if n++; n == 5 {
			return errEnough
		}
		return nil
	})
	if !errors.Is(err, errEnough) {
		t.Fatalf("a chat its reader stopped: %v, want the reader's error", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon went on generating after the client hung up")
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = c.Chat(ctx, req, func(memd.ChatEvent) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a chat whose context ended mid-stream: %v, want context.Canceled", err)
	}
}

// An event stream delivers events as they happen, ends with its context,
// and ends with io.EOF when the daemon stops.
func TestEventsAgainstServer(t *testing.T) {
	svc := apitest.New()
	sock := servertest.Socket(t, svc)
	c := api.NewClient(sock)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		svc.Events <- memd.Event{Type: memd.EventIndexed, Path: "/notes/a.md", Pending: 2 - i}
		ev, err := s.Next()
		if err != nil || ev.Type != memd.EventIndexed || ev.Pending != 2-i {
			t.Fatalf("event %d: %+v, %v", i, ev, err)
		}
	}
	next := make(chan error, 1)
	go func() { _, err := s.Next(); next <- err }()
	cancel()
	select {
	case err := <-next:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Next after the context ended: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next went on waiting after the context ended")
	}
	select {
	case <-svc.Unsubscribed:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon kept the subscription of a client that left")
	}
}

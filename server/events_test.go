package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/api/apitest"
)

func TestEvents(t *testing.T) {
	f := apitest.New()
	_, c, _ := serve(t, f, Options{Heartbeat: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []memd.Event{{Type: memd.EventIndexed, Path: "/n/a.md", Chunks: 3}, {Type: memd.EventProgress, Pending: 2}}
	go func() {
		for _, ev := range want {
			f.Events <- ev
		}
	}()
	for _, w := range want {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != w.Type || ev.Path != w.Path || ev.Chunks != w.Chunks || ev.Pending != w.Pending {
			t.Fatalf("got %+v, want %+v", ev, w)
		}
	}
	cancel()
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	waitUnsub(t, f)
}

// TestEventsDisconnect drops the connection mid-stream: the subscription
// ends and the daemon keeps serving.
func TestEventsDisconnect(t *testing.T) {
	f := apitest.New()
	_, c, _ := serve(t, f, Options{Heartbeat: 5 * time.Millisecond})
	conn, err := net.Dial("unix", c.Socket())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "GET /v1/events HTTP/1.1\r\nHost: memd\r\n\r\n")
	br := bufio.NewReader(conn)
	var sawEvent, sawPing bool
	go func() { f.Events <- memd.Event{Type: memd.EventRemoved, Path: "/n/x.md"} }()
	for !sawEvent || !sawPing {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		sawEvent = sawEvent || strings.HasPrefix(line, "event: note.removed")
		sawPing = sawPing || strings.HasPrefix(line, ": ping")
	}
	conn.Close()
	waitUnsub(t, f)
	if _, err := c.Status(context.Background()); err != nil {
		t.Fatalf("status after a dropped stream: %v", err)
	}
}

// TestShutdownEndsStreams checks that Shutdown does not wait on an open
// event stream.
func TestShutdownEndsStreams(t *testing.T) {
	f := apitest.New()
	s, c, _ := serve(t, f, Options{})
	st, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a stream open: %v", err)
	}
	if _, err := st.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("stream after shutdown: %v, want EOF", err)
	}
	waitUnsub(t, f)
}

func waitUnsub(t *testing.T, f *apitest.Service) {
	t.Helper()
	select {
	case <-f.Unsubscribed:
	case <-time.After(2 * time.Second):
		t.Fatal("the subscription did not end")
	}
}

// TestShutdownFinishesRequests: a request in flight when Shutdown starts
// gets its answer.
func TestShutdownFinishesRequests(t *testing.T) {
	f := apitest.New()
	started := make(chan struct{})
	f.RecallHook = func(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
		close(started)
		time.Sleep(200 * time.Millisecond)
		return memd.RecallResult{Hits: []memd.Hit{{Path: "/n/late.md"}}}, nil
	}
	s, c, _ := serve(t, f, Options{})
	got := make(chan error, 1)
	go func() {
		res, err := c.Recall(context.Background(), memd.RecallRequest{Query: "x"})
		if err == nil && len(res.Hits) != 1 {
			err = errors.New("no hit")
		}
		got <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := <-got; err != nil {
		t.Fatalf("request in flight: %v", err)
	}
	if _, err := c.Status(context.Background()); !errors.Is(err, api.ErrNotRunning) {
		t.Fatalf("after shutdown: %v, want api.ErrNotRunning", err)
	}
}

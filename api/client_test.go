package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/memd-dev/memd"
)

func TestNotRunning(t *testing.T) {
	dir := t.TempDir()
	c := NewClient(filepath.Join(dir, "none.sock"))
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("missing socket: %v", err)
	}
	// A socket file that nobody listens on any more.
	l, err := net.Listen("unix", filepath.Join(dir, "dead.sock"))
	if err != nil {
		t.Skip(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	c = NewClient(filepath.Join(dir, "dead.sock"))
	if _, err := c.Status(context.Background()); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("dead socket: %v", err)
	}
}

// TestDialOneConnection: Dial's connection serves the first request, so a
// command that asks once opens one connection (it once opened a probe and
// then another).
func TestDialOneConnection(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "memd.sock")
	if _, err := Dial(context.Background(), sock); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Dial with nothing listening: %v, want ErrNotRunning", err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	var conns atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(memd.Status{})
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("Dial and one request opened %d connections, want 1", n)
	}
}

package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	var conns atomic.Int32
	serveOn(t, sock, &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_ = json.NewEncoder(w).Encode(memd.Status{})
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	})

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

// Every request goes on a connection of its own and says Connection:
// close, Dial's first one included.
func TestRequestPerConnection(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "memd.sock")
	var closes []bool
	var conns atomic.Int32
	var mu sync.Mutex
	serveOn(t, sock, &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			closes = append(closes, r.Close)
			mu.Unlock()
			_ = json.NewEncoder(w).Encode(memd.Status{Notes: 7})
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	})

	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if st, err := c.Status(context.Background()); err != nil || st.Notes != 7 {
			t.Fatalf("status %+v, %v", st, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []bool{true, true, true}; !slices.Equal(closes, want) {
		t.Fatalf("Connection: close on the requests: %v, want %v", closes, want)
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("three requests opened %d connections, want 3", n)
	}
}

// A request on Dial's connection ends with its context, as one through the
// Transport does, and says why.
func TestDialFirstRequestCanceled(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "memd.sock")
	left := make(chan struct{})
	serveOn(t, sock, &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // the client hung up
		close(left)
	})})

	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Status(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("status past its deadline: %v, want context.DeadlineExceeded", err)
	}
	select {
	case <-left:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon's side of the request did not see the client leave")
	}
}

// serveOn serves srv on a unix socket at sock until the test ends.
func serveOn(t *testing.T, sock string, srv *http.Server) {
	t.Helper()
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

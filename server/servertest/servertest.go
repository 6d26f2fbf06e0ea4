package servertest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd/server"
)

// Socket serves svc on a fresh socket, in a short temporary folder (a unix
// socket's path is limited to about 100 bytes, which t.TempDir can pass),
// and returns its path. The server shuts down when the test ends, and the
// test fails if serving or shutting down did.
func Socket(t testing.TB, svc server.Service) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "memd-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "memd.sock")
	l, err := server.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewServer(svc, server.Options{Logger: slog.New(slog.DiscardHandler)})
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return sock
}

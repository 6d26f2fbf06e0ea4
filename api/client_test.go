package api

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
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

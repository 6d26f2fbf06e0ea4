package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server"
)

// fakeDaemon serves svc on a fresh short socket and returns its path.
func fakeDaemon(t *testing.T, svc server.Service) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "memctl")
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
	go s.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return sock
}

// run runs memctl with args against the socket and returns stdout, stderr
// and the error. It never starts a daemon.
func run(t *testing.T, sock string, args ...string) (string, string, error) {
	t.Helper()
	return runWith(t, sock, &app{}, args...)
}

// runWith is run with a's other fields (barOut) set by the test.
func runWith(t *testing.T, sock string, a *app, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a.out, a.errOut, a.noStart = &out, &errOut, true
	root := newRoot(a)
	root.SetArgs(append([]string{"--socket", sock, "--data", t.TempDir()}, args...))
	err := a.execute(context.Background(), root)
	return out.String(), errOut.String(), err
}

// TestConfigFileNamesTheSocket: memctl reads memd's config file, so a
// socket set there (and not on the command line) is the one it talks to.
func TestConfigFileNamesTheSocket(t *testing.T) {
	sock := fakeDaemon(t, apitest.New())
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("socket = \""+sock+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEMD_CONFIG", cfg)
	t.Setenv("MEMD_SOCKET", "")
	var out, errOut bytes.Buffer
	a := &app{out: &out, errOut: &errOut, noStart: true}
	root := newRoot(a)
	root.SetArgs([]string{"status", "--json"})
	if err := a.execute(context.Background(), root); err != nil {
		t.Fatalf("status with the socket from %s: %v (%s)", cfg, err, errOut.String())
	}
	if a.socket != sock {
		t.Errorf("memctl used socket %s, want %s from the config file", a.socket, sock)
	}
}

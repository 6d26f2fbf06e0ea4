package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

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
	sock := servertest.Socket(t, apitest.New())
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

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/api"
)

func TestNoDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	if _, _, err := run(t, sock, "status"); !errors.Is(err, api.ErrNotRunning) {
		t.Fatalf("got %v, want ErrNotRunning", err)
	}
}

// TestStartFailureReported puts a memd on PATH that fails at once: memctl
// says so, with what it logged.
func TestStartFailureReported(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'memd: open store: permission denied' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "memd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	dir, _ := os.MkdirTemp("", "memctl")
	defer os.RemoveAll(dir)
	a := &app{data: filepath.Join(dir, "data"), socket: filepath.Join(dir, "memd.sock"), out: os.Stdout, errOut: new(strings.Builder)}
	_, err := a.client(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exited as it started") || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("got %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "data", "memd.log")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("log: %v %v", fi, err)
	}
}

func TestNoMemdBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := findMemd(); err == nil || !strings.Contains(err.Error(), "go install") {
		t.Fatalf("got %v", err)
	}
}

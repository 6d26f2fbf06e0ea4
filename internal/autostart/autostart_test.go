package autostart

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartFailureReported puts a memd on PATH that fails at once: Connect
// says so, with what it logged, and the log is the user's alone.
func TestStartFailureReported(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho 'memd: open store: permission denied' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "memd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	dir, _ := os.MkdirTemp("", "autostart")
	defer os.RemoveAll(dir)
	d := Daemon{Data: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "memd.sock"), Log: new(strings.Builder)}
	_, err := Connect(context.Background(), d)
	if err == nil || !strings.Contains(err.Error(), "exited as it started") || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("got %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "data", "memd.log")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("log: %v %v", fi, err)
	}
}

func TestNoMemdBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := FindMemd(); !errors.Is(err, ErrNoMemd) || !strings.Contains(err.Error(), "go install") {
		t.Fatalf("FindMemd: got %v", err)
	}
	dir := t.TempDir()
	_, err := Connect(context.Background(), Daemon{Data: dir, Socket: filepath.Join(dir, "memd.sock")})
	if err == nil || !strings.Contains(err.Error(), "no memd is running") || !strings.Contains(err.Error(), "go install") {
		t.Fatalf("Connect: got %v", err)
	}
}

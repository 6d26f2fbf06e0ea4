package main

import (
	"errors"
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

// memctl mcp and model pull run memd; without one, memctl says what to
// install.
func TestExecWithoutMemd(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	sock := filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{{"mcp"}, {"model", "pull", "org/repo", "m.gguf"}} {
		_, _, err := run(t, sock, args...)
		if err == nil || !strings.Contains(err.Error(), "is run by memd") || !strings.Contains(err.Error(), "go install") {
			t.Errorf("memctl %v: got %v", args, err)
		}
	}
}

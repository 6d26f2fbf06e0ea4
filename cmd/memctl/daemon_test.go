package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/buildinfo"
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

// A memd built from another version than memctl is named before memctl
// hands a command to it: an older one answers "unknown command" to the
// commands it lacks, with nothing to say why. A memd of memctl's own
// version is not named.
func TestOtherMemdNamed(t *testing.T) {
	dir := t.TempDir()
	fake := func(version string) string {
		p := filepath.Join(dir, "memd")
		script := "#!/bin/sh\n[ \"$1\" = --version ] && echo 'memd " + version + " linux/amd64 go1.26' && exit 0\n" +
			"echo 'Error: unknown command' >&2; exit 1\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := otherMemd(fake("v0.3.0 (commit 0123456)")); got != "v0.3.0 (commit 0123456) linux/amd64 go1.26" {
		t.Errorf("an older memd: got %q", got)
	}
	if got := otherMemd(fake(buildinfo.String())); got != "" {
		t.Errorf("memctl's own version: got %q, want nothing", got)
	}
	if got := otherMemd(filepath.Join(dir, "absent")); got != "" {
		t.Errorf("a memd that does not run: got %q, want nothing", got)
	}
}

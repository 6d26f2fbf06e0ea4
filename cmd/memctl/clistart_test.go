package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// internal/clistart sets the runtime up (the stack, one P) before any init
// that does work (allocates), or the deep calls it is there for could come
// first: its import path must keep it early in Go's init order.
func TestRuntimeSetUpFirst(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "memctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("memctl --version: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		pkg, _, _ := strings.Cut(strings.TrimPrefix(line, "init "), " ")
		switch {
		case !strings.HasPrefix(line, "init "):
		case pkg == "github.com/memd-dev/memd/internal/clistart":
			return
		case !strings.HasSuffix(strings.TrimSpace(line), " 0 allocs"):
			t.Fatalf("%s's init allocates before internal/clistart's:\n%s", pkg, out)
		}
	}
	t.Fatalf("no init of internal/clistart in memctl's inittrace:\n%s", out)
}

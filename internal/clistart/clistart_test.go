package clistart

import (
	"runtime"
	"testing"
)

func TestOneP(t *testing.T) {
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("GOMAXPROCS is %d after clistart's init, want 1", n)
	}
}

package llamatest

import (
	"os"
	"testing"

	"github.com/memd-dev/memd/inference/llama"
)

// Library opens the llama.cpp library named by MEMD_LLAMA_LIB for a test,
// skipping the test when the variable is unset (CI sets it) and failing it
// when the library does not open. llama.Open returns the same Library for
// the same folder, so every test may call this.
func Library(t testing.TB) *llama.Library {
	t.Helper()
	dir := os.Getenv("MEMD_LLAMA_LIB")
	if dir == "" {
		t.Skip("MEMD_LLAMA_LIB is not set; point it at a folder holding libllama to run this test")
	}
	lib, err := llama.Open(dir)
	if err != nil {
		t.Fatalf("open llama.cpp library in %s: %v", dir, err)
	}
	return lib
}

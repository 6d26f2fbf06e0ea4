package llama_test

import (
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/runtime"
)

func init() {
	llama.FindTestLibrary = func() (string, error) { return runtime.Find(runtime.Options{}) }
}

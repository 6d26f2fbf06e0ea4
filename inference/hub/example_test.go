package hub_test

import (
	"fmt"

	"github.com/memd-dev/memd/inference/hub"
)

func ExampleLocalPath() {
	fmt.Println(hub.LocalPath("/home/u/.local/share/memd/models", "google/gemma-3-1b-it-qat-q4_0-gguf", "gemma-3-1b-it-q4_0.gguf"))
	// Output: /home/u/.local/share/memd/models/google__gemma-3-1b-it-qat-q4_0-gguf/gemma-3-1b-it-q4_0.gguf
}

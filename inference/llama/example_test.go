package llama_test

import (
	"fmt"
	"log"
	"os"

	"github.com/memd-dev/memd/inference/llama"
)

// Greedy generation of a few tokens with one sequence.
func Example() {
	lib, err := llama.Open(os.Getenv("MEMD_LLAMA_LIB"))
	if err != nil {
		log.Fatal(err)
	}
	model, err := lib.LoadModel("model.gguf", llama.ModelParams{})
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	ctx, err := model.NewContext(llama.ContextParams{NCtx: 2048, NThreads: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	prompt, _ := model.Tokenize("The note says", true, false)
	batch := llama.NewBatch(len(prompt), 1)
	defer batch.Free()
	for i, tok := range prompt {
		batch.Add(tok, int32(i), 0, i == len(prompt)-1)
	}
	sampler := model.NewSampler(llama.SamplerParams{})
	defer sampler.Free()
	for pos := int32(len(prompt)); pos < int32(len(prompt))+16; pos++ {
		if err := ctx.Decode(batch); err != nil {
			log.Fatal(err)
		}
		tok := sampler.Sample(ctx, batch.Len()-1)
		if model.IsEOG(tok) {
			break
		}
		fmt.Print(model.TokenPiece(tok))
		batch.Clear()
		batch.Add(tok, pos, 0, true)
	}
}

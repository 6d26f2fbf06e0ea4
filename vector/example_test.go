package vector_test

import (
	"fmt"

	"github.com/memd-dev/memd/vector"
)

func ExampleIndex_Search() {
	x := vector.New(4)
	x.AddFloat(1, []float32{1, 0, 0, 0})
	x.AddFloat(2, []float32{0.9, 0.1, 0, 0})
	x.AddFloat(3, []float32{0, 0, 1, 0})

	notTwo := func(chunk uint64) bool { return chunk != 2 }
	for _, r := range x.Search([]float32{1, 0.2, 0, 0}, 2, notTwo) {
		fmt.Printf("chunk %d score %.2f\n", r.Chunk, r.Score)
	}
	// Output:
	// chunk 1 score 0.98
	// chunk 3 score 0.00
}

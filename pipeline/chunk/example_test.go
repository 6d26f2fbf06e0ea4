package chunk_test

import (
	"fmt"

	"github.com/memd-dev/memd/pipeline/chunk"
	"github.com/memd-dev/memd/pipeline/parse"
)

func ExampleHeuristic() {
	src := "# Garden\n\n## Tomatoes\n\nWater daily in July.\n\n## Roses\n\nPrune in March.\n"
	n, _ := parse.Parse("garden.md", []byte(src))
	// A small target keeps the two sections apart in this small note.
	for _, c := range chunk.Heuristic(n, chunk.Options{TargetTokens: 8, MaxTokens: 20}) {
		fmt.Printf("lines %d-%d %q: %q\n", c.StartLine, c.EndLine, c.Heading, c.Title)
	}
	// Output:
	// lines 1-5 ["Garden" "Tomatoes"]: "Tomatoes"
	// lines 7-9 ["Garden" "Roses"]: "Roses"
}

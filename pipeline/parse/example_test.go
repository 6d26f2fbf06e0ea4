package parse_test

import (
	"fmt"

	"github.com/memd-dev/memd/pipeline/parse"
)

func ExampleParse() {
	src := "---\ntitle: Garden\ntags: [home]\n---\n## Tomatoes #summer\n\nSee [[watering|Watering plan]].\n\n```sh\nwater --daily\n```\n"
	n, err := parse.Parse("garden.md", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Title, n.Tags, n.Links)
	for _, b := range n.Blocks {
		fmt.Printf("%d %s lines %d-%d %q\n", b.Index, b.Kind, b.StartLine, b.EndLine, b.Heading)
	}
	// Output:
	// Garden [home summer] [watering]
	// 0 front_matter lines 1-4 []
	// 1 heading lines 5-5 []
	// 2 paragraph lines 7-7 ["Tomatoes #summer"]
	// 3 code lines 9-11 ["Tomatoes #summer"]
}

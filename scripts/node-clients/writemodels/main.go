// Command writemodels writes the generated models the Node client test
// serves: internal/chatmodel's generator (so a client can check the text
// and its citation) and a small embedder. It prints the two paths, one a line.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memd-dev/memd/inference/testmodel"
	"github.com/memd-dev/memd/internal/chatmodel"
)

func main() {
	dir := flag.String("dir", ".", "folder to write the models into")
	flag.Parse()
	gen, err := chatmodel.Write(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "writemodels:", err)
		os.Exit(1)
	}
	emb, err := testmodel.WriteEmbedder(*dir, testmodel.Config{Seed: 5})
	if err != nil {
		fmt.Fprintln(os.Stderr, "writemodels:", err)
		os.Exit(1)
	}
	fmt.Println(gen)
	fmt.Println(emb.Path)
}

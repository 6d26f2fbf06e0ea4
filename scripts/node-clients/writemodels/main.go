package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memd-dev/memd/inference/testmodel"
)

func main() {
	dir := flag.String("dir", ".", "folder to write the models into")
	flag.Parse()
	gen, err := testmodel.WriteChatModel(*dir)
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

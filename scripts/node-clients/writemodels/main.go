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

// Command gencorpus writes the generated corpus the pipeline's benchmarks
// index (internal/gencorpus) to a folder, for tools outside Go's tests:
//
//	gencorpus -notes 100000 DIR      # 219 MB of Markdown, 500 notes a folder
//	scripts/qmd-compare.sh 1 DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memd-dev/memd/internal/gencorpus"
)

func main() {
	notes := flag.Int("notes", 100000, "how many notes")
	seed := flag.Uint64("seed", 1, "the generator's seed (the benchmarks use 1)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-notes N] [-seed S] DIR")
		os.Exit(2)
	}
	if err := gencorpus.Write(flag.Arg(0), *notes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

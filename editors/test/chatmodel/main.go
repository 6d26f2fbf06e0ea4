// Command chatmodel writes testmodel.WriteChatModel's generated generator
// into a folder and prints its path: the editor tests' chat model, whose
// answer (testmodel.ChatAnswer, "water is good[1]") is known in advance.
package main

import (
	"fmt"
	"os"

	"github.com/memd-dev/memd/inference/testmodel"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: chatmodel DIR")
		os.Exit(2)
	}
	path, err := testmodel.WriteChatModel(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "chatmodel:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

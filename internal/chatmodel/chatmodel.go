package chatmodel

import (
	"fmt"
	"slices"

	"github.com/memd-dev/memd/inference/testmodel"
)

// Answer is what the model says before its first ".".
const Answer = "water is good[1]"

// Write writes dir/bigram.gguf and returns its path.
func Write(dir string) (string, error) {
	words := testmodel.BigramWords()
	// The vocabulary stops before the list's first repeated word: a token
	// text may appear once.
	n, seen := 0, map[string]bool{}
	for n < len(words) && !seen[words[n]] {
		seen[words[n]] = true
		n++
	}
	var chain []int32
	for _, w := range []string{"water", "is", "good"} {
		i := slices.Index(words[:n], w)
		if i < 0 {
			return "", fmt.Errorf("chatmodel: %q is not a bigram word", w)
		}
		chain = append(chain, testmodel.FirstWordToken+int32(i))
	}
	for _, b := range []byte("[1].") {
		chain = append(chain, testmodel.FirstWordToken-256+int32(b)) // the byte tokens come just before the words
	}
	table := make([]int32, int(testmodel.FirstWordToken)+n)
	for i := range table {
		table[i] = chain[0]
	}
	for i, tok := range chain {
		table[tok] = chain[(i+1)%len(chain)]
	}
	return testmodel.WriteBigramChat(dir, table)
}

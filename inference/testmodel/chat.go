package testmodel

import (
	"fmt"
	"slices"
)

// ChatAnswer is what the model WriteChatModel writes says before its first
// ".", after any prompt.
const ChatAnswer = "water is good[1]"

// WriteChatModel writes dir/bigram.gguf, a generator whose chat answer is
// known, for tests and benchmarks of chat through memd: a bigram model
// whose greedy output after any prompt cycles through ChatAnswer+"."
// forever, with GemmaTemplate as its chat template. A stop string "."
// ends the answer after one cycle.
func WriteChatModel(dir string) (string, error) {
	words := BigramWords()
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
			return "", fmt.Errorf("testmodel: %q is not a bigram word", w)
		}
		chain = append(chain, FirstWordToken+int32(i))
	}
	for _, b := range []byte("[1].") {
		chain = append(chain, firstByteToken+int32(b))
	}
	table := make([]int32, int(FirstWordToken)+n)
	for i := range table {
		table[i] = chain[0]
	}
	for i, tok := range chain {
		table[tok] = chain[(i+1)%len(chain)]
	}
	return WriteBigramChat(dir, table)
}

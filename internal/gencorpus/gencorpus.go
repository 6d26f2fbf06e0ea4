package gencorpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Write writes n Markdown notes under dir, 500 to a folder, from a
// fixed seed: YAML front matter with a title and tags, an H1, two to five
// H2 sections of one to three paragraphs of 15-60 words drawn from a Zipf
// distribution over 20,000 made-up words, and now and then a list, a code
// fence and a [[wikilink]]. Notes average about 2.2 KB (100,000 notes are
// 219 MB).
func Write(dir string, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0))
	vocab := make([]string, 20000)
	const letters = "etaoinshrdlucmfwypvbgkqjxz"
	for i := range vocab {
		l := 2 + r.IntN(9)
		var sb strings.Builder
		for range l {
			sb.WriteByte(letters[min(r.IntN(26), r.IntN(26))])
		}
		vocab[i] = sb.String()
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed, 1)), 1.1, 2, uint64(len(vocab)-1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		title := words(2 + r.IntN(4))
		fmt.Fprintf(&sb, "---\ntitle: %s\ntags: [%s, %s]\n---\n\n# %s\n\n", title, vocab[r.IntN(200)], vocab[r.IntN(200)], title)
		for range 2 + r.IntN(4) {
			fmt.Fprintf(&sb, "## %s\n\n", words(1+r.IntN(4)))
			for range 1 + r.IntN(3) {
				fmt.Fprintf(&sb, "%s.\n\n", words(15+r.IntN(46)))
			}
			switch r.IntN(6) {
			case 0:
				for range 2 + r.IntN(4) {
					fmt.Fprintf(&sb, "- %s\n", words(3+r.IntN(8)))
				}
				sb.WriteString("\n")
			case 1:
				fmt.Fprintf(&sb, "```go\nfunc %s() { return %s }\n```\n\n", vocab[r.IntN(1000)], vocab[r.IntN(1000)])
			case 2:
				fmt.Fprintf(&sb, "See [[note%05d]] for %s.\n\n", r.IntN(n), words(3))
			}
		}
		sub := filepath.Join(dir, fmt.Sprintf("f%03d", i/500))
		if i%500 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note%05d.md", i)), []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

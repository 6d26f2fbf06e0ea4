package chunk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memd-dev/memd/pipeline/parse"
)

const vault = "../../../shared/corpora/dendron/vault"

type vaultNote struct {
	path string
	data []byte
}

func readVault(tb testing.TB) []vaultNote {
	files, _ := filepath.Glob(filepath.Join(vault, "*.md"))
	if len(files) == 0 {
		tb.Skip("dendron vault not found at " + vault)
	}
	notes := make([]vaultNote, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		notes[i] = vaultNote{f, data}
	}
	return notes
}

// Over every note of the dendron vault, at the default sizes and at small
// ones that force many splits: coverage, order, the maximum, code blocks
// within the maximum never cut, and text equal to the source lines.
func TestDendronVault(t *testing.T) {
	notes := readVault(t)
	for _, o := range []Options{{}, {TargetTokens: 60, MaxTokens: 120}} {
		var chunks, split int
		for _, v := range notes {
			n, err := parse.Parse(v.path, v.data)
			if err != nil {
				t.Fatalf("%s: %v", v.path, err)
			}
			cs := Heuristic(n, o)
			checkChunks(t, v.path, n, cs, o.withDefaults())
			chunks += len(cs)
			for _, c := range cs {
				if c.FirstBlock == c.LastBlock && (c.StartLine != n.Blocks[c.FirstBlock].StartLine || c.EndLine != n.Blocks[c.FirstBlock].EndLine) {
					split++
				}
			}
		}
		t.Logf("options %+v: %d notes, %d chunks, %d pieces of split blocks", o, len(notes), chunks, split)
	}
}

func BenchmarkParseHeuristicVault(b *testing.B) {
	notes := readVault(b)
	var size int64
	for _, v := range notes {
		size += int64(len(v.data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range notes {
			n, err := parse.Parse(v.path, v.data)
			if err != nil {
				b.Fatal(err)
			}
			Heuristic(n, Options{})
		}
	}
}

func BenchmarkEstimateTokensVault(b *testing.B) {
	notes := readVault(b)
	var size int64
	for _, v := range notes {
		size += int64(len(v.data))
	}
	texts := make([]string, len(notes))
	for i, v := range notes {
		texts[i] = string(v.data)
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, s := range texts {
			EstimateTokens(s)
		}
	}
}

package chunk

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// reuseNotes are the vault's notes after a few that take joinUnits' other
// paths: lines ending "\r\n", a comment cut out, a blank line of spaces,
// a line over the maximum, split into pieces.
func reuseNotes(tb testing.TB) []vaultNote {
	long := strings.Repeat("word ", 2000)
	return append([]vaultNote{
		{"crlf.md", []byte("# A\r\n\r\none\r\ntwo\r\n\r\nthree\r\n")},
		{"comment.md", []byte("# A\n\none %% gone %% two\n\nthree\n")},
		{"spaces.md", []byte("# A\n\none\n   \ntwo\n\t\nthree\n")},
		{"long.md", []byte("# A\n\n" + long + "\n\nafter\n")},
	}, readVault(tb)...)
}

// TestJoinUnitsFromSource: a chunk's text taken as a span of the note's
// source is the text the units join to, at the default sizes and at small
// ones that split blocks.
func TestJoinUnitsFromSource(t *testing.T) {
	spans, joins := 0, 0
	for _, o := range []Options{{}, {TargetTokens: 60, MaxTokens: 120}} {
		o = o.withDefaults()
		for _, v := range reuseNotes(t) {
			n, err := parse.Parse(v.path, v.data)
			if err != nil {
				t.Fatal(err)
			}
			var us []unit
			for i := range n.Blocks {
				if n.Blocks[i].Kind != parse.FrontMatter {
					us = appendUnits(us, &n.Blocks[i], 0, 1<<31-1, o)
				}
			}
			var p plan
			start := 0
			for _, b := range append(p.cut(us, o), len(us)) {
				if b == start {
					continue
				}
				got, want := joinUnits(n.Source(), us[start:b]), joinUnits("", us[start:b])
				if got != want {
					t.Fatalf("%s: units %d-%d: text %q, joined %q", v.path, start, b, got, want)
				}
				if _, ok := sourceSpan(n.Source(), us[start:b]); ok {
					spans++
				} else {
					joins++
				}
				start = b
			}
		}
	}
	t.Logf("%d chunks a span of the source, %d joined", spans, joins)
}

// TestCutterReuse: one Cutter over many notes in turn cuts each as
// Heuristic does.
func TestCutterReuse(t *testing.T) {
	var c Cutter
	for _, o := range []Options{{}, {TargetTokens: 60, MaxTokens: 120}} {
		for _, v := range reuseNotes(t) {
			n, err := parse.Parse(v.path, v.data)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Heuristic(n, o), Heuristic(n, o); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: a reused Cutter gives\n%+v\nwant\n%+v", v.path, got, want)
			}
		}
	}
}

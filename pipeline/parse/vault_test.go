package parse

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const vault = "../../../shared/corpora/dendron/vault"

func vaultFiles(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(vault, "*.md"))
	if len(files) == 0 {
		tb.Skip("dendron vault not found at " + vault)
	}
	return files
}

// Every note of the dendron vault parses, its blocks cover every non-blank
// line in order, and no fenced code block is cut across blocks.
func TestDendronVault(t *testing.T) {
	files := vaultFiles(t)
	var blocks, code int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Parse(f, data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		lines := viewLines(f, string(data))
		checkSpans(t, f, n, len(lines))
		checkCoverage(t, f, n, lines)
		checkFences(t, f, n, lines)
		if n.Title == "" {
			t.Errorf("%s: no title", f)
		}
		blocks += len(n.Blocks)
		for _, b := range n.Blocks {
			if b.Kind == Code {
				code++
			}
		}
	}
	t.Logf("%d notes, %d blocks, %d code blocks", len(files), blocks, code)
}

// viewLines are the lines of a note as the block parser reads them: a
// Markdown note's with its comments cut out.
func viewLines(path, src string) []string {
	lines, _ := splitLines(strings.TrimPrefix(src, "\uFEFF"), nil, nil)
	if f, _ := FormatOf(path); f != Markdown || len(lines) == 0 {
		return lines
	}
	first := 0
	if end, ok := frontMatterEnd(lines); ok {
		first = end + 1
	}
	if first < len(lines) {
		lines, _ = cutComments(lines, first)
	}
	return lines
}

// checkCoverage asserts that each non-blank line lies in some block.
func checkCoverage(t *testing.T, name string, n *Note, lines []string) {
	t.Helper()
	bi := 0
	for i, l := range lines {
		for bi < len(n.Blocks) && n.Blocks[bi].EndLine < i+1 {
			bi++
		}
		in := bi < len(n.Blocks) && n.Blocks[bi].StartLine <= i+1
		if !in && !isBlank(l) {
			t.Fatalf("%s: line %d %q is in no block", name, i+1, l)
		}
	}
}

// checkFences finds fenced regions with a scanner of its own, outside the
// parser, and asserts each lies within one block.
func checkFences(t *testing.T, name string, n *Note, lines []string) {
	t.Helper()
	blockOf := func(line int) int {
		for _, b := range n.Blocks {
			if b.StartLine <= line && line <= b.EndLine {
				return b.Index
			}
		}
		return -1
	}
	// Fence-like lines in HTML, front matter or inside code are content.
	isContent := func(line int) bool {
		i := blockOf(line)
		if i < 0 {
			return false
		}
		b := n.Blocks[i]
		return b.Kind == HTML || b.Kind == FrontMatter || b.Kind == Code && line > b.StartLine
	}
	for i := 0; i < len(lines); i++ {
		rest := strings.TrimLeft(lines[i], " \t>-*+0123456789.")
		indent := len(lines[i]) - len(rest)
		rest = strings.TrimLeft(rest, " \t")
		if !(strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~")) || isContent(i+1) {
			continue
		}
		if strings.HasPrefix(rest, "```") && strings.Contains(strings.TrimLeft(rest, "`"), "`") {
			continue
		}
		c, k := rest[0], 0
		for k < len(rest) && rest[k] == c {
			k++
		}
		// An indented fence sits in a list item, which a line indented
		// less than the fence closes.
		lead := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		end := len(lines) - 1
		for j := i + 1; j < len(lines); j++ {
			r := strings.TrimSpace(lines[j])
			ind := len(lines[j]) - len(strings.TrimLeft(lines[j], " "))
			if r != "" && ind < lead {
				end = j - 1
				break
			}
			if len(r) >= k && strings.Trim(r, string(c)) == "" && ind <= indent+3 {
				end = j
				break
			}
		}
		for end > i && isBlank(lines[end]) {
			end--
		}
		if a, b := blockOf(i+1), blockOf(end+1); a != b || a < 0 {
			t.Fatalf("%s: fence at lines %d-%d spans blocks %d and %d", name, i+1, end+1, a, b)
		}
		i = end
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"# T\n\npara\n", "---\ntitle: x\n---\n", "```\ncode", "- a\n  - b\n\n  c\n", "> q\n>\n",
		"| a |\n|---|\n", "<!--\n", "* H :t:\n:PROPERTIES:\n", "#+BEGIN_SRC\n", "a\r\n===\r\n",
		"\t\t- x\n    ```\n", "---\n- a\n  - b: [c\n---\n",
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, src string, format uint8) {
		path := [...]string{"n.md", "n.org", "n.txt"}[format%3]
		n, err := Parse(path, []byte(src))
		if err != nil {
			return // ErrBinary / ErrNotUTF8 are the only outcomes besides a note
		}
		lines := viewLines(path, src)
		checkSpans(t, path, n, len(lines))
		checkCoverage(t, path, n, lines)
	})
}

func BenchmarkParseVault(b *testing.B) {
	files := vaultFiles(b)
	var data [][]byte
	var size int64
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		size += int64(len(d))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for i, d := range data {
			if _, err := Parse(files[i], d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestParserReuse: one Parser over many notes in turn, as a worker keeps
// one, gives each note what a fresh parse does: long notes (whose repeats
// go to a map) before short ones, comments, Org and text among Markdown,
// and the vault's notes.
func TestParserReuse(t *testing.T) {
	var long strings.Builder
	for range 3 * maxListedRepeats {
		long.WriteString("same words\n\n- item\n\n")
	}
	notes := []struct{ path, src string }{
		{"long.md", long.String()},
		{"short.md", "same words\n\nsame words\n\n# Head\n\nsame words\n"},
		{"comments.md", "a %% cut %% b\n\n<!-- gone\nstill gone -->\n\n# T\n\ntext\r\nmore\r\n"},
		{"n.org", "#+TITLE: Org\n* Head\n:PROPERTIES:\n:ID: 1\n:END:\nbody\n"},
		{"n.txt", "one\n\ntwo\n"},
		{"long.md", long.String()},
		{"tiny.md", "x"},
	}
	for _, f := range vaultFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, struct{ path, src string }{f, string(data)})
	}
	var p Parser
	for _, n := range notes {
		got, err := p.Parse(n.path, []byte(n.src))
		if err != nil {
			t.Fatalf("%s: %v", n.path, err)
		}
		want, _ := Parse(n.path, []byte(n.src))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: a reused Parser gives\n%+v\nwant\n%+v", n.path, got, want)
		}
	}
}

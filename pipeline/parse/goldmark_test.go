package parse

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// The differential test holds memd's block boundaries to goldmark's, a
// CommonMark parser with GitHub's tables: each top-level block (each item
// of a top-level list) must have the same kind, first and last line.
// goldmark sees what memd's block parser sees: front matter and comments
// blanked (both are memd's, not CommonMark's), so the test compares the
// block structure alone.

// span is a block as both parsers are compared: kind, 1-based lines and a
// heading's level.
type span struct {
	kind       Kind
	level      int
	start, end int
}

func (s span) String() string {
	if s.kind == Heading {
		return fmt.Sprintf("h%d:%d-%d", s.level, s.start, s.end)
	}
	return fmt.Sprintf("%s:%d-%d", s.kind, s.start, s.end)
}

// intended lists the disagreements memd keeps on purpose, each with why.
// A case matches a note's disagreement by the goldmark span and memd span
// it reports (either may be absent).
var intended = []struct {
	why   string
	match func(lines []string, gm, md *span) bool
}{
	{
		// CommonMark drops a link reference definition from the document;
		// memd keeps its line as a paragraph, so its words are found.
		"a link reference definition is a paragraph",
		func(lines []string, gm, md *span) bool {
			return md != nil && md.kind == Paragraph && isLinkRefDef(lines[md.start-1])
		},
	},
	{
		// GitHub's tables want as many cells in the header row as in
		// the delimiter row; goldmark pads a header without a pipe, and
		// the blocks around such a table differ with it.
		"a header row without a pipe is a paragraph",
		func(lines []string, gm, md *span) bool {
			return pipelessHeader(lines)
		},
	},
	{
		// CommonMark nests what follows an empty item at its content
		// column (spec: "-\n  foo" is one item), a list too; goldmark
		// starts a second list when the first content is a list, and
		// the blocks after it differ with it.
		"a list under an empty item is nested in it",
		func(lines []string, gm, md *span) bool {
			for i := 1; i < len(lines); i++ {
				if listUnderEmptyItem(lines, i) {
					return true
				}
			}
			return false
		},
	},
	{
		// goldmark cuts tables out of paragraphs after it has read them,
		// so a "-" or "=" line after a table's rows makes the rows a
		// setext heading's text first; memd's table takes the line as a
		// row, as it takes any line up to a blank one or a block start.
		"an underline under a table is a row",
		func(lines []string, gm, md *span) bool {
			for i := 1; i < len(lines); i++ {
				if isDelimiterRow(lines[i]) {
					for j := i + 1; j < len(lines) && !isBlank(lines[j]); j++ {
						if _, rest := indentOf(lines[j]); setextLevel(rest) > 0 {
							return true
						}
					}
				}
			}
			return false
		},
	},
}

// pipelessHeader reports whether a delimiter row follows a line without
// a pipe somewhere in lines.
func pipelessHeader(lines []string) bool {
	for i := 1; i < len(lines); i++ {
		if isDelimiterRow(lines[i]) && !isBlank(lines[i-1]) && !strings.Contains(lines[i-1], "|") {
			return true
		}
	}
	return false
}

// listUnderEmptyItem reports whether 1-based line i is an empty list item
// whose next line is a list item indented to its content.
func listUnderEmptyItem(lines []string, i int) bool {
	if i < 1 || i >= len(lines) {
		return false
	}
	ind, rest := indentOf(lines[i-1])
	nind, next := indentOf(lines[i])
	if rest == "" || next == "" {
		return false
	}
	m, ok := listMarker(rest)
	_, nested := listMarker(next)
	return ok && m.empty && nind >= ind+2 && nested
}

func isLinkRefDef(l string) bool {
	t := strings.TrimSpace(l)
	i := strings.Index(t, "]:")
	return strings.HasPrefix(t, "[") && i > 1 && !strings.HasPrefix(t, "[[")
}

var gm = goldmark.New(goldmark.WithExtensions(extension.Table))

// goldmarkBlocks parses lines with goldmark and returns its top-level
// blocks with each top-level list split into its items. A block's last
// line is the last non-blank line before the next block's first.
func goldmarkBlocks(lines []string) []span {
	src := []byte(strings.Join(lines, "\n") + "\n")
	lineAt := lineIndex(src)
	doc := gm.Parser().Parse(text.NewReader(src))
	var out []span
	add := func(n ast.Node, k Kind, level int) {
		pos := firstPos(n)
		if pos < 0 {
			return
		}
		out = append(out, span{kind: k, level: level, start: lineAt(pos)})
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			add(n, Paragraph, 0)
		case *ast.Heading:
			add(n, Heading, n.Level)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			add(n, Code, 0)
		case *ast.ThematicBreak:
			add(n, ThematicBreak, 0)
		case *ast.HTMLBlock:
			add(n, HTML, 0)
		case *ast.Blockquote:
			add(n, Quote, 0)
		case *extast.Table:
			// goldmark places a table at the paragraph it was cut from.
			add(n.FirstChild(), Table, 0)
		case *ast.List:
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				add(it, List, 0)
			}
		case *ast.LinkReferenceDefinition:
		default:
			panic(fmt.Sprintf("goldmark block %s not mapped", n.Kind()))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	for i := range out {
		next := len(lines) + 1
		if i+1 < len(out) {
			next = out[i+1].start
		}
		end := next - 1
		for end > out[i].start && (isBlank(lines[end-1]) || isLinkRefDef(lines[end-1])) {
			end--
		}
		out[i].end = end
	}
	return out
}

// firstPos is where goldmark says n starts, else where its first
// descendant with a position starts.
func firstPos(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if p := firstPos(c); p >= 0 {
			return p
		}
	}
	return -1
}

// lineIndex returns a function from a byte offset in src to its 1-based
// line.
func lineIndex(src []byte) func(int) int {
	var starts []int
	starts = append(starts, 0)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
	}
}

// memdBlocks is n's blocks as compared, front matter left out.
func memdBlocks(n *Note) []span {
	var out []span
	for _, b := range n.Blocks {
		if b.Kind == FrontMatter {
			continue
		}
		s := span{kind: b.Kind, start: b.StartLine, end: b.EndLine}
		if b.Kind == Heading {
			s.level = b.Level
		}
		out = append(out, s)
	}
	return out
}

// comparedLines is what goldmark reads of a note: its lines with
// comments cut out and front matter blanked.
func comparedLines(n *Note, path, src string) []string {
	lines := slices.Clone(viewLines(path, src))
	for _, b := range n.Blocks {
		if b.Kind == FrontMatter {
			for i := b.StartLine - 1; i < b.EndLine; i++ {
				lines[i] = ""
			}
		}
	}
	return lines
}

// disagreement is one block on which the parsers differ: present in one
// list and not the other (either side may be nil).
type disagreement struct {
	gm, md *span
	why    string // the intended difference it is, if it is one
}

// disagreements compares a note's blocks and returns the disagreements,
// and apart from them the intended ones.
func disagreements(path, src string) (real, excused []disagreement, err error) {
	n, err := Parse(path, []byte(src))
	if err != nil {
		return nil, nil, err
	}
	lines := comparedLines(n, path, src)
	g, m := goldmarkBlocks(lines), memdBlocks(n)
	var out []disagreement
	for i := range g {
		if !slices.Contains(m, g[i]) {
			out = append(out, disagreement{gm: &g[i]})
		}
	}
	for i := range m {
		if !slices.Contains(g, m[i]) {
			out = append(out, disagreement{md: &m[i]})
		}
	}
	// Pair a goldmark block with the memd block starting on its line.
	var paired []disagreement
	for _, d := range out {
		if d.md != nil {
			if i := slices.IndexFunc(paired, func(p disagreement) bool { return p.gm != nil && p.md == nil && p.gm.start == d.md.start }); i >= 0 {
				paired[i].md = d.md
				continue
			}
		}
		paired = append(paired, d)
	}
	for _, d := range paired {
		for _, c := range intended {
			if c.match(lines, d.gm, d.md) {
				d.why = c.why
				break
			}
		}
		if d.why == "" {
			real = append(real, d)
		} else {
			excused = append(excused, d)
		}
	}
	return real, excused, nil
}

func (d disagreement) String() string {
	show := func(s *span) string {
		if s == nil {
			return "-"
		}
		return s.String()
	}
	return "goldmark " + show(d.gm) + " memd " + show(d.md)
}

// Every block of the Dendron vault is where goldmark puts it, bar the
// intended differences.
func TestGoldmarkVault(t *testing.T) {
	files := vaultFiles(t)
	total, notes := 0, 0
	excused := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ds, ex, err := disagreements(f, string(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		countWhy(excused, ex)
		if len(ds) > 0 {
			notes++
			total += len(ds)
			t.Errorf("%s: %d disagreements, first %s", filepath.Base(f), len(ds), ds[0])
		}
	}
	t.Logf("%d notes, %d disagreements in %d notes; intended: %v", len(files), total, notes, excused)
}

// countWhy counts the notes with each intended difference.
func countWhy(notes map[string]int, ex []disagreement) {
	seen := map[string]bool{}
	for _, d := range ex {
		if !seen[d.why] {
			seen[d.why] = true
			notes[d.why]++
		}
	}
}

// genLines are the lines generated notes are made of: every block start
// memd knows, at indents around a list item's content column, with lazy
// text, blank lines and fence closers between them.
var genLines = []string{
	"", "", "", "text", "more text", "  indented text", " one space", "    four spaces", "\ttabbed",
	"# h1", " ## h2", "   ### h3", "    # code not heading", "  # h in item",
	"- item", "* star", "+ plus", "1. one", "2) two", "10. ten", "-", "  - nested", "   - three", "    - deep",
	"  1. nested one", "-     five spaces", "- [ ] task", "- # heading item", "- > quote item",
	"> quote", ">", "> > deep", "  > in item", "> - quote list", "> # quote head",
	"```", "~~~", "  ```", "```go", "    ```", "> ```", "- ```", "````",
	"---", "***", "===", "- - -",
	"| a | b |", "|---|---|", "a | b", "--|--",
	"<div>", "</div>", "<a href=\"x\">", "<a href=\"x\"><b>y</b>", "<!-- note -->", "<span>x</span> y",
	"%%", "a %%c%% b", "<!--", "-->", "- %%c%% item",
	"  > ```", "   ```", "\t- tab item", "1.  two spaces", "-\ttab after marker", "<pre>", "</pre>",
	"    > quote four", ">     code in quote", "  -  wide", "* * *", "#", "#5 not heading", "1) ```",
}

// genNote is a note of n lines drawn from genLines.
func genNote(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(genLines[r.IntN(len(genLines))])
		b.WriteByte('\n')
	}
	return b.String()
}

// Generated notes, mixing every block start memd knows at odd indents,
// have their blocks where goldmark has them, bar the intended differences.
func TestGoldmarkGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2026))
	failed := 0
	excused := map[string]int{}
	for i := range 5000 {
		src := genNote(r, 3+r.IntN(10))
		ds, ex, err := disagreements("gen.md", src)
		if err != nil {
			t.Fatal(err)
		}
		countWhy(excused, ex)
		if len(ds) > 0 {
			failed++
			if failed <= 20 {
				t.Errorf("note %d: %s\n%s", i, ds[0], src)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of 5000 generated notes disagree", failed)
	}
	t.Logf("notes with intended differences: %v", excused)
}

package chunk

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memd-dev/memd/pipeline/parse"
)

func parseMD(t testing.TB, src string) *parse.Note {
	t.Helper()
	n, err := parse.Parse("note.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// words returns n distinct-enough words, about n tokens.
func words(n int, seed string) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", seed, i%97)
	}
	return strings.Join(w, " ")
}

func TestBreakScore(t *testing.T) {
	b := func(k parse.Kind, level int) *parse.Block { return &parse.Block{Kind: k, Level: level} }
	u := func(bl *parse.Block, start int, text string) *unit {
		return &unit{block: bl, start: start, end: start, text: text}
	}
	para, para2 := b(parse.Paragraph, 0), b(parse.Paragraph, 0)
	list, list2 := b(parse.List, 1), b(parse.List, 1)
	code := b(parse.Code, 0)
	tests := []struct {
		name string
		a, b *unit
		want int
	}{
		{"before H1", u(para, 1, "x"), u(b(parse.Heading, 1), 3, "# A"), 18},
		{"before H2", u(para, 1, "x"), u(b(parse.Heading, 2), 3, "## A"), 16},
		{"before H3", u(para, 1, "x"), u(b(parse.Heading, 3), 3, "### A"), 14},
		{"before H6", u(para, 1, "x"), u(b(parse.Heading, 6), 3, "###### A"), 10},
		{"after a heading", u(b(parse.Heading, 2), 1, "## A"), u(para, 3, "x"), scoreOrphan},
		{"after thematic break", u(b(parse.ThematicBreak, 0), 1, "---"), u(para, 3, "x"), scoreAfterBreak},
		{"before thematic break", u(para, 1, "x"), u(b(parse.ThematicBreak, 0), 3, "---"), scoreBeforeRule},
		{"before code", u(para, 1, "x"), u(code, 3, "```"), scoreCode},
		{"after code", u(code, 1, "```"), u(para, 3, "x"), scoreCode},
		{"paragraphs", u(para, 1, "x"), u(para2, 3, "y"), scoreParagraph},
		{"paragraph to list", u(para, 1, "x"), u(list, 3, "- a"), scoreList},
		{"intro to list", u(para, 1, "these:"), u(list, 2, "- a"), scoreIntro},
		{"intro to code", u(para, 1, "run: "), u(code, 2, "```"), scoreIntro},
		{"list items", u(list, 1, "- a"), u(list2, 2, "- b"), scoreItem},
		{"loose list items", u(list, 1, "- a"), u(list2, 3, "- b"), scoreLooseItem},
		{"lines of a split block", u(code, 1, "a"), u(code, 2, "b"), scoreInBlock},
		{"blank line in a split block", u(code, 1, "a"), u(code, 3, "b"), scoreInBlock + 2},
		{"nested item in a split list", u(list, 1, "- a"), u(list, 2, "  - b"), scoreInBlock + 1},
		{"inside a long line", u(para, 1, "abc"), &unit{block: para, start: 1, end: 1, text: "def", midLine: true}, scoreMidLine},
	}
	for _, tt := range tests {
		if got := breakScore(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: score %d, want %d", tt.name, got, tt.want)
		}
	}
	// The order the heuristic depends on.
	order := []int{headingScore(1), headingScore(2), headingScore(3), headingScore(4), headingScore(5), headingScore(6),
		scoreAfterBreak, scoreCode, scoreParagraph, scoreList, scoreItem, scoreInBlock, scoreMidLine, scoreOrphan}
	for i := 1; i < len(order); i++ {
		if order[i] >= order[i-1] {
			t.Errorf("scores not strictly decreasing: %v", order)
		}
	}
}

func TestHeuristic(t *testing.T) {
	long := func(n int) string { return words(n, "w") + "\n" }
	tests := []struct {
		name string
		src  string
		o    Options
		want []string // "start-end" line spans
	}{
		{"small note is one chunk", "# T\n\nintro\n\n## A\n\nshort\n\n## B\n\nshort\n", Options{}, []string{"1-11"}},
		{"sections of fair size stand alone",
			"## A\n\n" + long(150) + "\n## B\n\n" + long(150), Options{}, []string{"1-3", "5-7"}},
		{"a heading stays with its content",
			"## A\n\n" + long(300) + "\n## B\n\n" + long(300) + "\n" + long(300), Options{},
			[]string{"1-3", "5-7", "9-9"}},
		{"front matter is not chunked", "---\ntitle: x\n---\nbody\n", Options{}, []string{"4-4"}},
		{"only front matter", "---\ntitle: x\n---\n", Options{}, nil},
		{"long section splits at paragraphs",
			long(200) + "\n" + long(200) + "\n" + long(200) + "\n" + long(200), Options{},
			[]string{"1-3", "5-7"}},
		{"heading beats a nearer paragraph break",
			long(100) + "\n" + long(100) + "\n" + long(100) + "\n## H\n\n" + long(300), Options{},
			[]string{"1-5", "7-9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := parseMD(t, tt.src)
			cs := Heuristic(n, tt.o)
			var got []string
			for _, c := range cs {
				got = append(got, fmt.Sprintf("%d-%d", c.StartLine, c.EndLine))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("chunks %q, want %q", got, tt.want)
			}
			checkChunks(t, tt.name, n, cs, tt.o.withDefaults())
		})
	}
}

func TestHeuristicCode(t *testing.T) {
	var code strings.Builder
	code.WriteString("```go\n")
	for i := range 400 {
		fmt.Fprintf(&code, "x%d := f(a, b) // step %d\n", i, i)
		if i%50 == 49 {
			code.WriteString("\n")
		}
	}
	code.WriteString("```\n")
	small := "```sh\n" + strings.Repeat("echo a b c d e f\n", 30) + "```\n"
	src := "# Code\n\n" + words(250, "p") + "\n\n" + small + "\n" + words(100, "q") + "\n\n" + code.String()
	n := parseMD(t, src)
	o := Options{}.withDefaults()
	cs := Heuristic(n, Options{})
	checkChunks(t, "code", n, cs, o)
	var big parse.Block
	for _, b := range n.Blocks {
		if b.Kind == parse.Code && b.Lang == "go" {
			big = b
		}
	}
	pieces := 0
	for _, c := range cs {
		if c.FirstBlock == big.Index && c.LastBlock == big.Index {
			pieces++
			if c.StartLine != big.StartLine && !strings.HasPrefix(c.Text, "x") {
				t.Errorf("piece of code starts mid-line: %q", c.Text[:20])
			}
		}
	}
	if pieces < 2 {
		t.Errorf("oversize code block in %d chunks, want it split", pieces)
	}
}

func TestHeuristicLongLine(t *testing.T) {
	line := words(3000, "z") // one line, far over MaxTokens
	n := parseMD(t, "## Long\n\n"+line+"\n\nafter\n")
	cs := Heuristic(n, Options{})
	o := Options{}.withDefaults()
	checkChunks(t, "long line", n, cs, o)
	var joined strings.Builder
	for _, c := range cs {
		if c.StartLine <= 3 && c.EndLine >= 3 {
			joined.WriteString(strings.TrimPrefix(c.Text, "## Long\n\n"))
		}
	}
	if got := strings.TrimSuffix(joined.String(), "\n\nafter"); got != line {
		t.Errorf("pieces of the long line do not join back: %d bytes vs %d", len(got), len(line))
	}
	if len(cs) < 5 {
		t.Errorf("%d chunks for a %d-token line", len(cs), EstimateTokens(line))
	}
}

func TestHeadingAndTitle(t *testing.T) {
	src := "# Top\n\n## A\n\n" + words(200, "a") + "\n\n### A1\n\n" + words(200, "b") + "\n\n## B\n\n" + words(200, "c") + "\n"
	n := parseMD(t, src)
	cs := Heuristic(n, Options{})
	want := [][]string{{"Top", "A"}, {"Top", "A", "A1"}, {"Top", "B"}}
	if len(cs) != len(want) {
		t.Fatalf("%d chunks, want %d", len(cs), len(want))
	}
	for i, c := range cs {
		if !slices.Equal(c.Heading, want[i]) || c.Title != want[i][len(want[i])-1] {
			t.Errorf("chunk %d: heading %q title %q, want %q", i, c.Heading, c.Title, want[i])
		}
	}
	// A chunk across two sections is under their common heading; the
	// note's title stands in when there is none.
	n = parseMD(t, "intro\n\n## A\n\nx\n\n## B\n\ny\n")
	cs = Heuristic(n, Options{})
	if len(cs) != 1 || cs[0].Heading != nil || cs[0].Title != "note" {
		t.Errorf("merged chunk: %+v", cs)
	}
}

func TestSplitOversizeAndSpan(t *testing.T) {
	src := "# T\n\n" + words(500, "a") + "\n\n" + words(500, "b") + "\n\n" + words(500, "c") + "\n\n## U\n\nend\n"
	n := parseMD(t, src)
	whole := Span(n, 0, len(n.Blocks)-1)
	if whole.StartLine != 1 || whole.EndLine != n.Blocks[len(n.Blocks)-1].EndLine || whole.Text != strings.TrimSuffix(src, "\n") {
		t.Fatalf("Span of all blocks: lines %d-%d", whole.StartLine, whole.EndLine)
	}
	o := Options{}
	parts := SplitOversize(n, whole, o)
	if len(parts) < 2 {
		t.Fatalf("SplitOversize gave %d parts", len(parts))
	}
	checkChunks(t, "split", n, parts, o.withDefaults())
	small := Span(n, 4, 5)
	if got := SplitOversize(n, small, o); len(got) != 1 || got[0].Text != small.Text {
		t.Errorf("SplitOversize changed a chunk within max: %+v", got)
	}
	if small.Title != "U" || !slices.Equal(small.Heading, []string{"T", "U"}) {
		t.Errorf("Span heading %q title %q", small.Heading, small.Title)
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"   \n\t", 0},
		{"hello world", 2},
		{"internationalization", 3},
		{"a, b.", 4},
		{"北京大学", 4},
		{"Go言語", 3},
		{"コーヒーー", 5}, // the prolonged sound mark is a character of its script, as in lexical
		{"café ☕", 2},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.s); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func FuzzEstimateTokensSubadditive(f *testing.F) {
	f.Add("hello wor", "ld again")
	f.Add("北京", "大学")
	f.Fuzz(func(t *testing.T, a, b string) {
		if EstimateTokens(a+b) > EstimateTokens(a)+EstimateTokens(b) {
			t.Fatalf("estimate of %q+%q exceeds its parts", a, b)
		}
	})
}

// checkChunks asserts what Heuristic guarantees: chunks in order covering
// every non-front-matter block exactly once, each within MaxTokens, no
// code block within MaxTokens cut, and each chunk's text equal to its
// source lines.
func checkChunks(t *testing.T, name string, n *parse.Note, cs []Chunk, o Options) {
	t.Helper()
	lines := strings.Split(reconstruct(n), "\n")
	covered := map[int]int{} // block index -> chunks holding part of it
	for i, c := range cs {
		if c.FirstBlock > c.LastBlock || c.StartLine > c.EndLine {
			t.Fatalf("%s: chunk %d inverted: %+v", name, i, c)
		}
		if i > 0 {
			p := cs[i-1]
			if c.FirstBlock < p.LastBlock || c.StartLine < p.EndLine {
				t.Fatalf("%s: chunk %d (lines %d-%d) overlaps or precedes chunk %d (lines %d-%d)", name, i, c.StartLine, c.EndLine, i-1, p.StartLine, p.EndLine)
			}
		}
		if tok := EstimateTokens(c.Text); tok > o.MaxTokens {
			t.Errorf("%s: chunk %d has %d tokens, max %d", name, i, tok, o.MaxTokens)
		}
		// A chunk that shares a line with a neighbour (a line split for
		// size) holds only part of that line.
		want := normalize(strings.Join(lines[c.StartLine-1:c.EndLine], "\n"))
		shares := i > 0 && cs[i-1].EndLine == c.StartLine || i+1 < len(cs) && cs[i+1].StartLine == c.EndLine
		if got := normalize(c.Text); got != want && !(shares && strings.Contains(want, got)) {
			t.Errorf("%s: chunk %d text differs from lines %d-%d:\n%q\nvs\n%q", name, i, c.StartLine, c.EndLine, got, want)
		}
		for b := c.FirstBlock; b <= c.LastBlock; b++ {
			covered[b]++
		}
	}
	for _, b := range n.Blocks {
		k := covered[b.Index]
		switch {
		case b.Kind == parse.FrontMatter:
			if k != 0 {
				t.Errorf("%s: front matter in a chunk", name)
			}
		case k == 0:
			t.Errorf("%s: block %d (lines %d-%d) in no chunk", name, b.Index, b.StartLine, b.EndLine)
		case k > 1 && EstimateTokens(b.Text) <= o.MaxTokens:
			t.Errorf("%s: block %d (%s, lines %d-%d, %d tokens) split across %d chunks", name, b.Index, b.Kind, b.StartLine, b.EndLine, EstimateTokens(b.Text), k)
		}
	}
}

// reconstruct rebuilds the file's lines from the blocks, blank lines empty.
func reconstruct(n *parse.Note) string {
	var lines []string
	for _, b := range n.Blocks {
		for len(lines) < b.StartLine-1 {
			lines = append(lines, "")
		}
		lines = append(lines, strings.Split(b.Text, "\n")...)
	}
	return strings.Join(lines, "\n")
}

func normalize(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		if strings.TrimSpace(l) == "" {
			ls[i] = ""
		}
	}
	return strings.Join(ls, "\n")
}

func FuzzHeuristic(f *testing.F) {
	f.Add("# T\n\npara\n\n```\ncode\n```\n", 40)
	f.Add("- a\n  - b\n\n  c\n\n"+strings.Repeat("word ", 300), 20)
	f.Add("---\ntitle: x\n---\n"+strings.Repeat("長い行", 200), 10)
	f.Fuzz(func(t *testing.T, src string, max int) {
		n, err := parse.Parse("fuzz.md", []byte(src))
		if err != nil {
			return
		}
		o := Options{TargetTokens: max%200 + 1, MaxTokens: max%400 + 1}
		checkChunks(t, "fuzz", n, Heuristic(n, o), o.withDefaults())
	})
}

func TestPieceEnd(t *testing.T) {
	tests := []struct {
		l     string
		limit int
		want  string
	}{
		{"one two three four five six", 4, "one two three four "},
		{"First sentence here. Second one goes on and on", 7, "First sentence here. "},
		{"tiny. then many more words follow here", 7, "tiny. then many more words follow "},
		{"北京大学。東京大学", 6, "北京大学。"},
		{"abcdefghijklmnopqrstuvwxyz", 2, "abcdefghijklmnopqrs"},
		{"short", 10, "short"},
	}
	for _, tt := range tests {
		if got := tt.l[:pieceEnd(tt.l, tt.limit)]; got != tt.want {
			t.Errorf("pieceEnd(%q, %d) = %q, want %q", tt.l, tt.limit, got, tt.want)
		}
	}
}

// TestEstimateTokensIsTheEstimator: the fast loop counts as the estimator
// does one rune at a time, over random mixes of words, spaces, marks,
// scripts and broken UTF-8.
func TestEstimateTokensIsTheEstimator(t *testing.T) {
	parts := []string{"a", "Zq9", "word", "longerwordthanten", " ", "\n", "\t", ".", "-", "é", "日本", "ー", "한", "\xff", "\xe6\x97", "x\u0301"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(24) {
			sb.WriteString(parts[rng.IntN(len(parts))])
		}
		s := sb.String()
		var e estimator
		for _, r := range s {
			e.add(r)
		}
		if got, want := EstimateTokens(s), e.total(); got != want {
			t.Fatalf("EstimateTokens(%q) = %d, the estimator %d", s, got, want)
		}
	}
}

package lsp

import (
	"slices"
	"testing"
)

func TestLinkAt(t *testing.T) {
	line := "see [[alpha]] and [[beta#Part|b]] x"
	for col, want := range map[int]string{4: "alpha", 12: "alpha", 20: "beta#Part|b", 0: "", 13: "", 35: ""} {
		_, inner, ok := linkAt(line, col)
		if inner != want || ok != (want != "") {
			t.Errorf("col %d: %q %v, want %q", col, inner, ok, want)
		}
	}
}

func TestOpenLink(t *testing.T) {
	for _, c := range []struct {
		line  string
		col   int
		from  int
		typed string
		ok    bool
	}{
		{"write [[Al", 10, 8, "Al", true},
		{"write [[", 8, 8, "", true},
		{"[[done]] and [[ne", 17, 15, "ne", true},
		{"[[done]] after", 14, 0, "", false},
		{"[[note|ali", 10, 0, "", false}, // an alias, not a name
		{"[[note#hea", 10, 0, "", false}, // an anchor
		{"no link", 3, 0, "", false},
	} {
		from, typed, ok := openLink(c.line, c.col)
		if from != c.from || typed != c.typed || ok != c.ok {
			t.Errorf("%q at %d: %d %q %v, want %d %q %v", c.line, c.col, from, typed, ok, c.from, c.typed, c.ok)
		}
	}
}

func TestTags(t *testing.T) {
	for _, c := range []struct {
		line  string
		col   int
		typed string
		ok    bool
	}{
		{"write #pro", 10, "pro", true},
		{"#", 1, "", true},
		{"a #", 3, "", true},
		{"# Heading", 1, "", true},
		{"issue#12", 8, "", false}, // not after a space
		{"see #a/b.c", 10, "a/b.c", true},
	} {
		_, typed, ok := openTag(c.line, c.col)
		if typed != c.typed || ok != c.ok {
			t.Errorf("openTag %q at %d: %q %v, want %q %v", c.line, c.col, typed, ok, c.typed, c.ok)
		}
	}
	for _, c := range []struct {
		line string
		col  int
		tag  string
	}{
		{"more #proj #Other.", 6, "proj"},
		{"more #proj #Other.", 5, "proj"},
		{"more #proj #Other.", 13, "other"},
		{"more #proj #Other.", 2, ""},
		{"# Heading", 0, ""},
		{"#123 is an issue", 1, ""},
	} {
		_, tag, ok := tagAt(c.line, c.col)
		if tag != c.tag || ok != (c.tag != "") {
			t.Errorf("tagAt %q at %d: %q %v, want %q", c.line, c.col, tag, ok, c.tag)
		}
	}
}

func TestCodeLinesAndParagraph(t *testing.T) {
	lines := splitLines("a\n```go\n[[x]]\n```\nb\nc\n\nd\n#+BEGIN_SRC sh\n[[y]]\n#+END_SRC\n")
	want := []bool{false, true, true, true, false, false, false, false, true, true, true, false}
	if got := codeLines(lines); !slices.Equal(got, want) {
		t.Errorf("code lines %v, want %v", got, want)
	}
	if f, l := paragraph(lines, 5); f != 0 || l != 5 {
		t.Errorf("paragraph around line 5: %d-%d, want 0-5", f, l)
	}
	if f, l := paragraph(lines, 6); f != 6 || l != 6 {
		t.Errorf("paragraph at a blank line: %d-%d, want 6-6", f, l)
	}
}

func TestEncodings(t *testing.T) {
	line := "a😀é[[x]]" // 😀 is two UTF-16 units and four bytes; é two bytes
	if got := utf16.byteCol(line, 4); got != 7 {
		t.Errorf("UTF-16 character 4 is byte %d, want 7", got)
	}
	if got := utf16.charCol(line, 7); got != 4 {
		t.Errorf("byte 7 is UTF-16 character %d, want 4", got)
	}
	if got := utf8e.byteCol(line, 7); got != 7 {
		t.Errorf("UTF-8 character 7 is byte %d", got)
	}
	d := newDocument("file:///n.md", 1, "one\ntwo😀\nthree")
	text := applyChange(d, Range{Start: Position{Line: 1, Character: 3}, End: Position{Line: 1, Character: 5}}, "!", utf16)
	if text != "one\ntwo!\nthree" {
		t.Errorf("a ranged change gives %q", text)
	}
}

func TestMayNameNote(t *testing.T) {
	for link, want := range map[string]bool{
		"note": true, "dir/note.md": true, "Note: a subtitle": true, "file:a.org][x": true, "dendron://v/a.b": true,
		"a.b.c": true, "https://example.org][site": false, "image.png": false, "doc.pdf|label": false,
	} {
		if got := mayNameNote(link); got != want {
			t.Errorf("mayNameNote(%q) = %v, want %v", link, got, want)
		}
	}
}

func TestURIs(t *testing.T) {
	p := "/home/me/my notes/ü.md"
	if got := pathOf(uriOf(p)); got != p {
		t.Errorf("round trip of %q: %q via %s", p, got, uriOf(p))
	}
	if pathOf("untitled:1") != "" {
		t.Error("a URI that is not a file has a path")
	}
}

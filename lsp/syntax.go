package lsp

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memd-dev/memd"
)

// What the server reads of a note's syntax: just enough to know what the
// cursor is on. Columns are byte offsets into one line.

// linkAt finds the [[link]] the column is on, and the text between its
// brackets.
func linkAt(line string, col int) (span [2]int, inner string, ok bool) {
	for _, s := range memd.LinkSpans(line) {
		if s[0] <= col && col < s[1] {
			return s, line[s[0]+2 : s[1]-2], true
		}
	}
	return span, "", false
}

// openLink finds a "[[" before the column that is not closed before it,
// and returns where the typed name starts and the name typed so far. A
// name past a '|', '#' or '^' is an alias or anchor, not a note's name.
func openLink(line string, col int) (from int, typed string, ok bool) {
	col = min(col, len(line))
	i := strings.LastIndex(line[:col], "[[")
	if i < 0 {
		return 0, "", false
	}
	typed = line[i+2 : col]
	if strings.ContainsAny(typed, "]|#^") {
		return 0, "", false
	}
	return i + 2, typed, true
}

// isTagRune is what a tag is made of after its '#'.
func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("_-/.", r)
}

// openTag finds a '#' before the column, at the line's start or after a
// space, followed by tag characters up to the column: the tag being typed.
func openTag(line string, col int) (from int, typed string, ok bool) {
	col = min(col, len(line))
	j := col
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:j])
		if !isTagRune(r) {
			break
		}
		j -= size
	}
	if j == 0 || line[j-1] != '#' || j >= 2 && !unicode.IsSpace(rune(line[j-2])) {
		return 0, "", false
	}
	return j, line[j:col], true
}

// tagAt finds the #tag the column is on, without its '#'.
func tagAt(line string, col int) (span [2]int, tag string, ok bool) {
	if col >= len(line) {
		return span, "", false
	}
	end := col
	if line[col] == '#' {
		end++
	}
	for end < len(line) {
		r, size := utf8.DecodeRuneInString(line[end:])
		if !isTagRune(r) {
			break
		}
		end += size
	}
	from, typed, ok := openTag(line, end)
	typed = strings.TrimRight(typed, "-/.")
	if !ok || typed == "" || strings.IndexFunc(typed, unicode.IsLetter) < 0 || from-1 > col {
		return span, "", false
	}
	return [2]int{from - 1, from + len(typed)}, strings.ToLower(typed), true
}

// frontMatterEnd is the 0-based line of the "---" that closes the YAML
// front matter, or -1 when the note has none.
func frontMatterEnd(lines []string) int {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return -1
	}
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
			return i
		}
	}
	return -1
}

// paragraph returns the 0-based lines first..last of the run of non-blank
// lines around line n (just n when it is blank).
func paragraph(lines []string, n int) (first, last int) {
	first, last = n, n
	if n < 0 || n >= len(lines) || strings.TrimSpace(lines[n]) == "" {
		return n, n
	}
	for first > 0 && strings.TrimSpace(lines[first-1]) != "" {
		first--
	}
	for last < len(lines)-1 && strings.TrimSpace(lines[last+1]) != "" {
		last++
	}
	return first, last
}

// codeLines marks the lines inside fenced code blocks (``` or ~~~, and
// Org's #+begin_src), where brackets are code, not links.
func codeLines(lines []string) []bool {
	out := make([]bool, len(lines))
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		lower := strings.ToLower(t)
		switch {
		case fence != "":
			out[i] = true
			if strings.HasPrefix(t, fence) || fence == "#+end" && strings.HasPrefix(lower, "#+end_") {
				fence = ""
			}
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence, out[i] = t[:3], true
		case strings.HasPrefix(lower, "#+begin_src"), strings.HasPrefix(lower, "#+begin_example"):
			fence, out[i] = "#+end", true
		}
	}
	return out
}

// firstWords is the start of text, up to n words, on one line.
func firstWords(text string, n int) string {
	words := strings.Fields(text)
	if len(words) > n {
		return strings.Join(words[:n], " ") + "…"
	}
	return strings.Join(words, " ")
}

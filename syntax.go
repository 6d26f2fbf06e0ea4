package memd

import "strings"

// The little of a note's syntax that the daemon (resolving links, finding
// backlinks) and editors' clients (what the cursor is on) must read alike.

// LinkSpans returns the byte spans of the [[...]] links on one line of a
// note, each from its "[[" to just past its "]]".
func LinkSpans(line string) [][2]int {
	var out [][2]int
	for i := 0; ; {
		j := strings.Index(line[i:], "[[")
		if j < 0 {
			return out
		}
		start := i + j
		k := strings.Index(line[start+2:], "]]")
		if k < 0 {
			return out
		}
		end := start + 2 + k + 2
		out = append(out, [2]int{start, end})
		i = end
	}
}

// Heading reads a Markdown ("## Title ##") or Org ("** TODO Title :tag:")
// heading line into its level and text.
func Heading(line string) (level int, text string, ok bool) {
	marker := byte('#')
	if strings.HasPrefix(line, "*") {
		marker = '*'
	}
	for level < len(line) && line[level] == marker {
		level++
	}
	if level == 0 || level == len(line) || line[level] != ' ' || marker == '#' && level > 6 {
		return 0, "", false
	}
	text = strings.TrimSpace(line[level:])
	if marker == '#' {
		text = strings.TrimSpace(strings.TrimRight(text, "#"))
	} else if i := strings.LastIndex(text, " :"); i >= 0 && strings.HasSuffix(text, ":") {
		text = strings.TrimSpace(text[:i])
	}
	return level, text, text != ""
}
